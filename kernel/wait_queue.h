/* Wait queues: threads sleeping until some condition, guarded by a
 * spinlock of the caller's, may have become true. */
#ifndef KERNEL_WAIT_QUEUE_H
#define KERNEL_WAIT_QUEUE_H

#include "kernel/spinlock.h"
#include "kernel/thread_list.h"

/* All zeroes is an empty queue. */
struct wait_queue {
    struct thread_list waiters; /* under sched_lock; first to sleep is first woken */
};

/* Sleeps until woken. Call holding lock, taken with spin_lock_irqsave():
 * it is released only once the thread is on the queue, so a waker that
 * takes lock after us cannot miss us, and taken again before returning.
 * Wake-ups can be spurious: re-check the condition in a loop. */
void wait_queue_sleep(struct wait_queue *wq, struct spinlock *lock);

/* Wakes the longest sleeper, if any. Call holding the lock the sleepers
 * pass to wait_queue_sleep(). */
void wait_queue_wake_one(struct wait_queue *wq);

/* Wakes every sleeper. Call holding the sleepers' lock. */
void wait_queue_wake_all(struct wait_queue *wq);

#endif
