/* The native ticket lock itself, inline: what spin_lock() runs with
 * pv.spinlock=off and what the native pv_lock_ops entries wrap. */
#ifndef KERNEL_TICKET_LOCK_H
#define KERNEL_TICKET_LOCK_H

#include <stdbool.h>

#include "kernel/spinlock.h"

/* Takes a ticket: the lock is ours once owner reaches it. */
static inline uint32_t ticket_take(struct spinlock *l)
{
    return __atomic_fetch_add(&l->next_ticket, 1, __ATOMIC_RELAXED);
}

/* Acquire ordering: nothing in the critical section moves above the
 * moment the lock is ours. */
static inline bool ticket_served(struct spinlock *l, uint32_t mine)
{
    return __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) == mine;
}

/* Spins until ticket mine is served. */
static inline void ticket_wait(struct spinlock *l, uint32_t mine)
{
    while (!ticket_served(l, mine))
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
