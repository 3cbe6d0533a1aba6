/* Spinlocks: the ticket lock inline, or through pv_lock_ops when the
 * backend has a lock of its own; interrupts through the irq ops either
 * way. */
#include "kernel/spinlock.h"

#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/ticket_lock.h"
#include "pv/irq.h"
#include "pv/lock_ops.h"

static bool pv_spinlocks = true;
OPTION_BOOL(pv_spinlocks, "pv.spinlock", "take spinlocks through pv_lock_ops (on) or inline (off)");

/* Set once the options are read, when pv.spinlock=on and the backend has
 * a lock of its own; until then, one CPU and no contention, every lock is
 * the ticket lock inline. A backend whose lock is that ticket lock
 * (natively) leaves its slots NULL, so this test is all that pv spinlocks
 * cost natively: the same instructions as pv.spinlock=off (in 2008 the
 * pv lock's out-of-line call cost native kernels 2-7%). */
static bool lock_through_ops;

/* The uncontended path is the ticket lock's on every backend; only a
 * waiter asks the backend how to wait (Linux's pv locks split the same way). */
void spin_lock(struct spinlock *l)
{
    uint32_t mine = ticket_take(l);

    if (ticket_served(l, mine))
        return;
    if (lock_through_ops)
        pv_lock_ops.wait(l, mine);
    else
        ticket_wait(l, mine);
}

void spin_unlock(struct spinlock *l)
{
    if (lock_through_ops)
        pv_lock_ops.unlock(l);
    else
        ticket_unlock(l);
}

void spin_lock_setup(void)
{
    lock_through_ops = pv_spinlocks && pv_lock_ops.wait;
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

    spin_lock(l);
    return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    spin_unlock(l);
    irq_restore(flags);
}
