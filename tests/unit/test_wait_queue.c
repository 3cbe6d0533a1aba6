/* kernel/wait_queue.c against a fake scheduler: who is queued, in what
 * order they are woken, and which locks are held at each step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernel/sched.h"
#include "kernel/sched_core.h"
#include "kernel/wait_queue.h"

/* ---- The fakes: spinlocks that check their use, and a scheduler whose
 * "switch" returns at once, as if the thread had been woken. */

struct spinlock sched_lock;
static struct spinlock caller_lock;
static struct thread threads[3];
static struct thread *running;
static struct thread *woken[3];
static int woken_count, blocked_count, sched_lock_taken;
static struct wait_queue *sleeping_on;

static void take(struct spinlock *l)
{
    assert_false(spin_is_locked(l)); /* one CPU: never contended */
    l->next_ticket++;
    if (l == &sched_lock)
        sched_lock_taken++;
}

/* sched_lock is released by the next thread, so it never counts toward
 * preemption: only the raw calls may take it. */
void spin_lock(struct spinlock *l)
{
    assert_ptr_not_equal(l, &sched_lock);
    take(l);
}

void raw_spin_lock(struct spinlock *l)
{
    assert_ptr_equal(l, &sched_lock);
    take(l);
}

void raw_spin_unlock(struct spinlock *l)
{
    assert_true(spin_is_locked(l));
    l->owner++;
}

unsigned long raw_spin_lock_irqsave(struct spinlock *l)
{
    raw_spin_lock(l);
    return 0x200;
}

void raw_spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    assert_int_equal(flags, 0x200);
    raw_spin_unlock(l);
}

void spin_unlock(struct spinlock *l)
{
    assert_true(spin_is_locked(l));
    l->owner++;
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
    spin_lock(l);
    return 0x200;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    assert_int_equal(flags, 0x200);
    spin_unlock(l);
}

struct thread *thread_current(void)
{
    return running;
}

/* The moment of going to sleep: queued, the caller's lock free for a
 * waker, the scheduler's held across the switch. */
void sched_block_locked(void)
{
    assert_true(spin_is_locked(&sched_lock));
    assert_false(spin_is_locked(&caller_lock));
    assert_ptr_equal(sleeping_on->waiters.tail, running);
    running->state = THREAD_BLOCKED;
    blocked_count++;
}

void sched_wake_locked(struct thread *t)
{
    assert_true(spin_is_locked(&sched_lock));
    assert_int_equal(t->state, THREAD_BLOCKED);
    t->state = THREAD_RUNNABLE;
    woken[woken_count++] = t;
}

/* Each of the threads goes to sleep on wq in turn. */
static void all_sleep(struct wait_queue *wq)
{
    sleeping_on = wq;
    for (int i = 0; i < 3; i++) {
        running = &threads[i];
        unsigned long flags = spin_lock_irqsave(&caller_lock);
        wait_queue_sleep(wq, &caller_lock);
        assert_true(spin_is_locked(&caller_lock)); /* taken again */
        assert_false(spin_is_locked(&sched_lock));
        spin_unlock_irqrestore(&caller_lock, flags);
    }
    assert_int_equal(blocked_count, 3);
}

static int reset(void **state)
{
    (void)state;
    sched_lock = caller_lock = (struct spinlock){0};
    for (int i = 0; i < 3; i++)
        threads[i] = (struct thread){.state = THREAD_RUNNING, .slot = i};
    woken_count = blocked_count = sched_lock_taken = 0;
    return 0;
}

static void test_wake_one_in_order(void **state)
{
    struct wait_queue wq = {0};

    (void)state;
    all_sleep(&wq);
    for (int i = 0; i < 3; i++) {
        spin_lock(&caller_lock);
        wait_queue_wake_one(&wq);
        spin_unlock(&caller_lock);
        assert_int_equal(woken_count, i + 1);
        assert_ptr_equal(woken[i], &threads[i]); /* first to sleep, first woken */
    }
    assert_true(thread_list_empty(&wq.waiters));
}

static void test_wake_all(void **state)
{
    struct wait_queue wq = {0};

    (void)state;
    all_sleep(&wq);
    wait_queue_wake_all(&wq);
    assert_int_equal(woken_count, 3);
    for (int i = 0; i < 3; i++)
        assert_ptr_equal(woken[i], &threads[i]);
    assert_true(thread_list_empty(&wq.waiters));
}

/* No sleepers, no scheduler lock: the channel wakes on every transfer. */
static void test_wake_empty_is_cheap(void **state)
{
    struct wait_queue wq = {0};

    (void)state;
    wait_queue_wake_one(&wq);
    wait_queue_wake_all(&wq);
    assert_int_equal(woken_count, 0);
    assert_int_equal(sched_lock_taken, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_wake_one_in_order, reset),
        cmocka_unit_test_setup(test_wake_all, reset),
        cmocka_unit_test_setup(test_wake_empty_is_cheap, reset),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
