/* The queued lock's word (struct spinlock's val): the locked byte, a
 * pending bit for the first waiter, and the tail of an MCS queue of
 * per-CPU nodes for the rest (Linux's qspinlock layout). Taking a free
 * lock is one cmpxchg from 0; a backend supplies the slow path. */
#ifndef KERNEL_QSPINLOCK_H
#define KERNEL_QSPINLOCK_H

#include <stdbool.h>

#include "kernel/spinlock.h"

#define Q_LOCKED 1u /* the locked byte: held */
#define Q_SLOW 3u   /* held, and the queue's head halted: unlock must kick */
#define Q_PENDING 0x100u
#define Q_LOCKED_PENDING_MASK 0xffffu
#define Q_TAIL_SHIFT 16 /* tail: (cpu + 1) << 2 | node index, 0 for none */

static inline bool queued_trylock(struct spinlock *l)
{
    uint32_t free = 0;

    return __atomic_compare_exchange_n(&l->val, &free, Q_LOCKED, false, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

#endif
