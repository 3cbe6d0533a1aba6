/* The native ticket lock itself, inline: what spin_lock() runs with
 * pv.spinlock=off and what the native pv_lock_ops entries wrap. */
#ifndef KERNEL_TICKET_LOCK_H
#define KERNEL_TICKET_LOCK_H

#include "kernel/spinlock.h"

/* Takes a ticket and spins until it is served. Acquire ordering: nothing
 * in the critical section moves above the moment the lock is ours. */
static inline void ticket_lock(struct spinlock *l)
{
    uint32_t mine = __atomic_fetch_add(&l->next_ticket, 1, __ATOMIC_RELAXED);

    while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != mine)
        __builtin_ia32_pause();
}

/* Serves the next ticket. Release ordering: the critical section's
 * stores are visible before the next holder's. Only the holder writes
 * owner, so a plain increment suffices. */
static inline void ticket_unlock(struct spinlock *l)
{
    __atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

#endif
