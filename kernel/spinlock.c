/* Spinlocks: the ticket lock inline, or through pv_lock_ops when the
 * backend has a lock of its own; interrupts through the irq ops and the
 * holder's preemption through the scheduler's count either way. */
#include "kernel/spinlock.h"

#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/preempt.h"
#include "kernel/qspinlock.h"
#include "kernel/ticket_lock.h"
#include "pv/irq.h"
#include "pv/lock_ops.h"

static bool pv_spinlocks = true;
OPTION_BOOL(pv_spinlocks, "pv.spinlock", "take spinlocks through pv_lock_ops (on) or inline (off)");

/* Set once the options are read, when pv.spinlock=on and the backend has
 * a lock of its own; until then, one CPU and no contention, every lock is
 * the ticket lock inline. A backend whose lock is that ticket lock
 * (natively) leaves its slots NULL, so one predicted test on taking and
 * one on releasing are all that pv spinlocks cost natively (in 2008 the
 * pv lock's out-of-line call cost native kernels 2-7%). */
enum { LOCK_TICKET_INLINE, LOCK_TICKET_OPS, LOCK_QUEUED };
static unsigned char lock_mode;

/* The uncontended path is inline on every backend; only a waiter asks
 * the backend how to wait (Linux's pv locks split the same way). */
void raw_spin_lock(struct spinlock *l)
{
    if (__builtin_expect(lock_mode == LOCK_QUEUED, 0)) {
        if (!queued_trylock(l))
            pv_lock_ops.wait(l, __atomic_load_n(&l->val, __ATOMIC_RELAXED));
        return;
    }
    uint32_t mine = ticket_take(l);

    if (ticket_served(l, mine))
        return;
    if (lock_mode == LOCK_TICKET_OPS)
        pv_lock_ops.wait(l, mine);
    else
        ticket_wait(l, mine);
}

void raw_spin_unlock(struct spinlock *l)
{
    if (lock_mode != LOCK_TICKET_INLINE)
        pv_lock_ops.unlock(l);
    else
        ticket_unlock(l);
}

void spin_lock(struct spinlock *l)
{
    preempt_disable();
    raw_spin_lock(l);
}

void spin_unlock(struct spinlock *l)
{
    raw_spin_unlock(l);
    preempt_enable();
}

/* A queued waiter holds a per-CPU node, which a thread preempted while
 * queued would leave to the next thread on that CPU: so this waiter,
 * which may be preempted, only ever tries the lock word. */
void spin_lock_preemptible(struct spinlock *l)
{
    if (lock_mode != LOCK_QUEUED) {
        raw_spin_lock(l);
        return;
    }
    while (__atomic_load_n(&l->val, __ATOMIC_RELAXED) || !queued_trylock(l))
        __builtin_ia32_pause();
}

void spin_unlock_preemptible(struct spinlock *l)
{
    raw_spin_unlock(l);
}

void spin_lock_setup(void)
{
    if (pv_spinlocks && pv_lock_ops.setup)
        pv_lock_ops.setup();
    if (!pv_spinlocks || !pv_lock_ops.wait)
        lock_mode = LOCK_TICKET_INLINE;
    else
        lock_mode = pv_lock_ops.queued ? LOCK_QUEUED : LOCK_TICKET_OPS;
}

const char *spin_lock_kind(void)
{
    return pv_spinlocks ? pv_lock_ops.name : "inline ticket";
}

bool spin_lock_uses_pv_ops(void)
{
    return pv_spinlocks;
}

/* Tour 170: Locks are where the irq ops are hot.
 * Every `spin_lock_irqsave` is a save_fl and an irq_disable, every unlock a
 * restore_fl: three call sites on each lock round trip. These are the paths
 * (context switch, channels) where the 2006 binary-patching numbers moved most,
 * and the reason the patched sites must cost nothing natively. */
unsigned long spin_lock_irqsave(struct spinlock *l)
{
    unsigned long flags = irq_save();

    preempt_disable();
    raw_spin_lock(l);
    return flags;
}

/* Preemption comes back after interrupts do, so a slice that ended
 * meanwhile can end here. */
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    raw_spin_unlock(l);
    irq_restore(flags);
    preempt_enable();
}

unsigned long raw_spin_lock_irqsave(struct spinlock *l)
{
    unsigned long flags = irq_save();

    raw_spin_lock(l);
    return flags;
}

void raw_spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    raw_spin_unlock(l);
    irq_restore(flags);
}
