/* Spinlocks for data shared with interrupt handlers and other CPUs.
 * Natively, and with pv.spinlock=off, a ticket lock: waiters are served in
 * arrival order. A backend may bring its own lock through pv_lock_ops
 * (pv/lock_ops.h): under Xen a queued lock whose waiters block.
 *
 * Every spin_lock() keeps its holder from being preempted until
 * spin_unlock(), as Linux's do: a preempted holder leaves each waiter on
 * its CPU spinning a whole slice per hand-over, a convoy that does not
 * break up. spin_lock_irqsave() also disables interrupts through the irq
 * ops (pv/irq.h), so a handler on this CPU never spins on a lock its own
 * CPU holds. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* All zeroes is an unlocked lock, in either representation. Which one
 * every lock uses is fixed at boot, before any is contended. */
struct spinlock {
    union {
        struct {                  /* the ticket lock (kernel/ticket_lock.h) */
            uint32_t next_ticket; /* the ticket the next arrival takes */
            uint32_t owner;       /* the ticket being served: the holder's */
        };
        uint32_t val; /* the queued lock (kernel/qspinlock.h); owner stays 0 */
        struct {
            uint8_t locked;
            uint8_t pending;
            uint16_t tail;
        };
    };
};

/* Disables interrupts, then takes l; returns the flags to give back to
 * spin_unlock_irqrestore(). */
unsigned long spin_lock_irqsave(struct spinlock *l);

/* Releases l, then restores the interrupt flag as flags says. */
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

/* Take and release without touching the interrupt flag: for code that
 * already runs with interrupts disabled, or that may take interrupts. */
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);

/* The lock alone, the preemption count untouched: for the scheduler's own
 * lock, which is held across a context switch and released by the next
 * thread, always with interrupts off. */
void raw_spin_lock(struct spinlock *l);
void raw_spin_unlock(struct spinlock *l);
unsigned long raw_spin_lock_irqsave(struct spinlock *l);
void raw_spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);

/* A holder the tick may preempt: only for the scheduler self-test, which
 * shows what a preempted holder costs. Its waiter spins preemptibly. */
void spin_lock_preemptible(struct spinlock *l);
void spin_unlock_preemptible(struct spinlock *l);

/* Once the options are read, before any lock is contended: locks go
 * through pv_lock_ops from here on if pv.spinlock=on and the backend
 * filled them. */
void spin_lock_setup(void);

/* What spin_lock() runs, for the boot log: pv_lock_ops' name, or
 * "inline ticket" with pv.spinlock=off. */
const char *spin_lock_kind(void);

/* True when spin_lock() goes through pv_lock_ops (pv.spinlock=on). */
bool spin_lock_uses_pv_ops(void);

/* True if some thread holds l (or waits for it): for assertions. A queued
 * lock leaves owner 0, so one test serves both representations. */
static inline int spin_is_locked(const struct spinlock *l)
{
    return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
           __atomic_load_n(&l->next_ticket, __ATOMIC_RELAXED);
}

#endif
