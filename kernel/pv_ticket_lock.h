/* The blocking ticket lock both hypervisors' pv spinlocks share: a
 * waiter spins a while, then records which ticket it waits for and
 * blocks its vCPU; the unlocker kicks the vCPU of the next ticket, the
 * only one that may go. What "block" and "kick" are is the backend's:
 * Xen polls an event channel and sends on it (xen/lock.c), KVM halts and
 * kicks with KVM_HC_KICK_CPU (kvm/lock.c). */
#ifndef KERNEL_PV_TICKET_LOCK_H
#define KERNEL_PV_TICKET_LOCK_H

#include <stdint.h>

#include "kernel/spinlock.h"

struct ticket_blocker {
    /* Before the wait is recorded: forgets a kick meant for an earlier
     * wait, so only one sent for this wait ends it. NULL: nothing to. */
    void (*arm)(void);
    /* Blocks this vCPU until kicked, or sooner (the waiter checks its
     * ticket again). Called with interrupts off; flags are the caller's. */
    void (*block)(unsigned long flags);
    /* Ends cpu's block, or makes its next one return at once: a kick
     * that comes before the block is not lost. */
    void (*kick)(unsigned cpu);
};

/* Locks block and kick through b from now on: before any lock is
 * contended (a pv_lock_ops setup). Until then waiters only spin. */
void ticket_blocker_use(const struct ticket_blocker *b);

/* pv_lock_ops.wait and .unlock of a blocking ticket lock. */
void pv_ticket_wait(struct spinlock *l, uint32_t mine);
void pv_ticket_unlock(struct spinlock *l);

#endif
