#include "kernel/wait_queue.h"

#include "kernel/sched.h"
#include "kernel/sched_core.h"

/* lock was taken with interrupts disabled, so sched_lock can be taken
 * plainly; from the push to the switch both are held, then only
 * sched_lock, which the next thread releases. */
void wait_queue_sleep(struct wait_queue *wq, struct spinlock *lock)
{
    raw_spin_lock(&sched_lock);
    thread_list_push_back(&wq->waiters, thread_current());
    spin_unlock(lock);
    sched_block_locked();
    raw_spin_unlock(&sched_lock);
    spin_lock(lock);
}

/* Every sleeper joined the queue holding the caller's lock, which the
 * caller now holds: an empty queue really is empty, without sched_lock. */
static void wake(struct wait_queue *wq, int how_many)
{
    if (thread_list_empty(&wq->waiters))
        return;
    unsigned long flags = raw_spin_lock_irqsave(&sched_lock);
    for (int i = 0; i != how_many && !thread_list_empty(&wq->waiters); i++)
        sched_wake_locked(thread_list_pop_front(&wq->waiters));
    raw_spin_unlock_irqrestore(&sched_lock, flags);
}

void wait_queue_wake_one(struct wait_queue *wq)
{
    wake(wq, 1);
}

void wait_queue_wake_all(struct wait_queue *wq)
{
    wake(wq, -1);
}
