/* Spinlocks for data shared with interrupt handlers (and, later, other
 * CPUs). A ticket lock: waiters are served in arrival order.
 *
 * spin_lock_irqsave() disables interrupts through the irq ops (pv/irq.h)
 * before taking the lock, so an interrupt handler on this CPU can never
 * spin on a lock its own CPU holds. On one CPU the ticket is always free
 * by then; the lock is still taken so an SMP kernel keeps this API.
 *
 * With pv.spinlock=on the lock and unlock go through pv_lock_ops
 * (pv/lock_ops.h) when the backend fills them: a hypervisor backend may
 * block instead of spin. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* All zeroes is an unlocked lock. */
struct spinlock {
    uint32_t next_ticket; /* the ticket the next arrival takes */
    uint32_t owner;       /* the ticket being served: the holder's */
};

/* Disables interrupts, then takes l; returns the flags to give back to
 * spin_unlock_irqrestore(). */
unsigned long spin_lock_irqsave(struct spinlock *l);

/* Releases l, then restores the interrupt flag as flags says. */
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

/* Take and release without touching the interrupt flag: for code that
 * already runs with interrupts disabled. */
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);

/* Once the options are read: locks go through pv_lock_ops from here on
 * if pv.spinlock=on and the backend filled them. */
void spin_lock_setup(void);

/* What spin_lock() runs, for the boot log: pv_lock_ops' name, or
 * "inline ticket" with pv.spinlock=off. */
const char *spin_lock_kind(void);

/* True when spin_lock() goes through pv_lock_ops (pv.spinlock=on). */
bool spin_lock_uses_pv_ops(void);

/* True if some thread holds l: for assertions. */
static inline int spin_is_locked(const struct spinlock *l)
{
    return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
           __atomic_load_n(&l->next_ticket, __ATOMIC_RELAXED);
}

#endif
