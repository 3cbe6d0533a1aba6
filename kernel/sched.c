/* The scheduler: one CPU, a FIFO run queue, a sleep list ordered by
 * deadline, and a periodic tick from the platform's one-shot timer.
 *
 * The slice is the tick period: each tick that finds another thread
 * waiting moves the running one to the back of the run queue. The tick
 * runs in interrupt context, on the interrupted thread's own stack (no
 * separate interrupt stack, natively or under Xen), so it can switch
 * right there; the interrupted thread finishes its interrupt return
 * when it is next switched in. */
#include "kernel/sched.h"

#include <stdbool.h>

#include "arch/x86/thread_arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched_core.h"
#include "kernel/thread_list.h"
#include "kernel/time.h"
#include "mm/kernel_map.h"
#include "pv/irq.h"

static uint64_t slice_ms = 10;
OPTION_UINT(slice_ms, "sched.slice_ms", 1, 1000, "round-robin time slice in milliseconds");

struct spinlock sched_lock;

/* Everything below is protected by sched_lock. */
static struct thread boot_thread = {.name = "main",
                                    .state = THREAD_RUNNING,
                                    .slot = -1,
                                    .stack_bottom = (uint64_t *)boot_stack_bottom};
static struct thread *current = &boot_thread;
static struct thread *idle_thread;   /* runs when nothing else can; never queued */
static struct thread_list run_queue; /* RUNNABLE threads, next to run first */
static struct thread_list sleepers;  /* SLEEPING threads, earliest wake_ns first */
static uint64_t slice_ns;
static uint64_t next_tick_ns; /* when the running thread's slice ends */
static uint64_t armed_ns;     /* what the one-shot timer is set for */
static uint64_t preemptions, switches;

/* Runs the first runnable thread, or the idle thread if there is none.
 * Call with sched_lock held, interrupts disabled, and current already
 * where its state says (run queue, sleep list, a wait queue, nowhere).
 * Returns when current is switched back in, holding sched_lock again:
 * whoever switched to it took the lock, and current now owns it. */
static void switch_away(void)
{
    struct thread *prev = current;
    struct thread *next = thread_list_pop_front(&run_queue);

    if (!next)
        next = idle_thread;
    next->state = THREAD_RUNNING;
    if (next == prev)
        return;
    stack_check_thread(prev, (uint64_t)__builtin_frame_address(0));
    current = next;
    switches++;
    context_switch(&prev->context, next->context);
}

/* Moves the running thread to the back of the run queue. The idle thread
 * is never queued: it runs only when the queue is empty. */
static void requeue_current(void)
{
    if (current == idle_thread)
        return;
    current->state = THREAD_RUNNABLE;
    thread_list_push_back(&run_queue, current);
}

/* Sets the one-shot for the end of the slice or the first sleeper's
 * deadline, whichever comes first. */
static void arm_timer(void)
{
    uint64_t when = next_tick_ns;

    if (!thread_list_empty(&sleepers) && sleepers.head->wake_ns < when)
        when = sleepers.head->wake_ns;
    armed_ns = when;
    timer_arm(when);
}

static void wake_sleepers(uint64_t now)
{
    while (!thread_list_empty(&sleepers) && sleepers.head->wake_ns <= now) {
        struct thread *t = thread_list_pop_front(&sleepers);
        t->state = THREAD_RUNNABLE;
        thread_list_push_back(&run_queue, t);
    }
}

/* The timer callback: interrupt context, interrupts disabled. A thread
 * woken from sleep runs at once if the CPU was idle, else at the next
 * slice boundary. */
static void sched_tick(void)
{
    uint64_t now = time_now_ns();

    spin_lock(&sched_lock);
    wake_sleepers(now);
    bool slice_over = now >= next_tick_ns;
    if (slice_over)
        next_tick_ns = now + slice_ns;
    arm_timer();
    if (!thread_list_empty(&run_queue) && (slice_over || current == idle_thread)) {
        if (current != idle_thread)
            preemptions++;
        requeue_current();
        switch_away();
    }
    spin_unlock(&sched_lock);
}

void thread_yield(void)
{
    unsigned long flags = spin_lock_irqsave(&sched_lock);

    requeue_current();
    switch_away();
    spin_unlock_irqrestore(&sched_lock, flags);
}

void sleep_until(uint64_t deadline_ns)
{
    unsigned long flags = spin_lock_irqsave(&sched_lock);

    if (time_now_ns() < deadline_ns) {
        current->wake_ns = deadline_ns;
        current->state = THREAD_SLEEPING;
        thread_list_insert_by_wake(&sleepers, current);
        if (deadline_ns < armed_ns)
            arm_timer();
        switch_away();
    }
    spin_unlock_irqrestore(&sched_lock, flags);
}

void sched_block_locked(void)
{
    current->state = THREAD_BLOCKED;
    switch_away();
}

void sched_wake_locked(struct thread *t)
{
    if (t->state != THREAD_BLOCKED)
        return;
    t->state = THREAD_RUNNABLE;
    thread_list_push_back(&run_queue, t);
}

void sched_make_runnable(struct thread *t)
{
    unsigned long flags = spin_lock_irqsave(&sched_lock);

    t->state = THREAD_RUNNABLE;
    thread_list_push_back(&run_queue, t);
    spin_unlock_irqrestore(&sched_lock, flags);
}

/* The lock is not released: the next thread to run does that, once this
 * stack is no longer in use. Hence DEAD, seen under sched_lock, means the
 * stack is free. */
void thread_exit(void)
{
    spin_lock_irqsave(&sched_lock);
    if (current == &boot_thread || current == idle_thread)
        panic("sched: thread %s cannot exit", current->name);
    current->state = THREAD_DEAD;
    if (current->joiner)
        sched_wake_locked(current->joiner);
    switch_away();
    panic("sched: dead thread %s ran again", current->name);
}

void sched_wait_dead(struct thread *t)
{
    unsigned long flags = spin_lock_irqsave(&sched_lock);

    if (t->joiner && t->joiner != current)
        panic("sched: thread %s joined by two threads", t->name);
    while (t->state != THREAD_DEAD) {
        t->joiner = current;
        sched_block_locked();
    }
    t->joiner = 0;
    spin_unlock_irqrestore(&sched_lock, flags);
}

void sched_finish_first_switch(void)
{
    spin_unlock(&sched_lock);
}

/* Checks for work with interrupts disabled, so a wake-up from an interrupt
 * cannot fall between the check and the halt: safe_halt() enables them
 * and waits in one step. The tick switches away from idle when it wakes
 * a sleeper; a thread woken by another interrupt is found on the next
 * pass. */
static void idle_loop(void *unused)
{
    (void)unused;
    for (;;) {
        irq_disable();
        spin_lock(&sched_lock);
        bool nothing_to_run = thread_list_empty(&run_queue);
        spin_unlock(&sched_lock);
        if (nothing_to_run) {
            safe_halt();
        } else {
            irq_enable();
            thread_yield();
        }
    }
}

void sched_init(void)
{
    slice_ns = slice_ms * NSEC_PER_MSEC;
    idle_thread = thread_alloc("idle", idle_loop, 0);
    if (!idle_thread)
        panic("sched: no stack slot for the idle thread");
    unsigned long flags = spin_lock_irqsave(&sched_lock);
    timer_set_callback(sched_tick);
    next_tick_ns = time_now_ns() + slice_ns;
    arm_timer();
    spin_unlock_irqrestore(&sched_lock, flags);
    irq_enable();
    kprintf("sched: round robin, %lu ms slices, %s spinlocks\n", slice_ms, spin_lock_kind());
}

struct thread *thread_current(void)
{
    return current;
}

uint64_t sched_preemptions(void)
{
    return preemptions;
}

uint64_t sched_switches(void)
{
    return switches;
}
