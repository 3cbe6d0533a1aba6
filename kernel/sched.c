/* The scheduler: one FIFO run queue shared by every CPU, a sleep list
 * ordered by deadline, and a periodic tick from each CPU's one-shot timer.
 *
 * One queue under one lock, as in xv6: any CPU runs whichever thread is
 * next, so placement is "the first free CPU" and a thread migrates
 * whenever a different CPU picks it up. It is the simplest correct design,
 * not the cheapest: the lock is held across a switch, and what CPUs
 * contending for it cost is what ctx_switch measures on several CPUs
 * (docs/smp.md); per-CPU queues with balancing are the next step. An idle
 * CPU halts (safe_halt) and is woken by an IPI when a thread becomes
 * runnable. The boot thread, "main", is bound to the boot CPU: the
 * self-tests and benchmarks it runs then start from the same place
 * whatever the threads before them did, which keeps `--icount` figures on
 * several CPUs repeatable. thread_create_on() binds a thread the same way,
 * for a benchmark that needs one thread on each CPU.
 *
 * The slice is the tick period: each tick that finds another thread
 * waiting moves the running one to the back of the run queue. The tick
 * runs in interrupt context, on the interrupted thread's own stack (no
 * separate interrupt stack, natively or under Xen), so it can switch
 * right there; the interrupted thread finishes its interrupt return
 * when it is next switched in, on whichever CPU that is. */
#include "kernel/sched.h"

#include <stdbool.h>

#include "arch/x86/thread_arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/sched_core.h"
#include "kernel/smp.h"
#include "kernel/thread_list.h"
#include "kernel/time.h"
#include "mm/kernel_map.h"
#include "pv/irq.h"
#include "pv/ops.h"

static uint64_t slice_ms = 10;
OPTION_UINT(slice_ms, "sched.slice_ms", 1, 1000, "round-robin time slice in milliseconds");

struct spinlock sched_lock;

/* Everything below is protected by sched_lock. */
static struct thread boot_thread = {.name = "main",
                                    .state = THREAD_RUNNING,
                                    .slot = -1,
                                    .cpu = 0,
                                    .stack_bottom = (uint64_t *)boot_stack_bottom};
static struct thread_list run_queue; /* RUNNABLE threads, next to run first */
static struct thread_list sleepers;  /* SLEEPING threads, earliest wake_ns first */
static uint64_t slice_ns;
static uint64_t preemptions, switches, deferrals;

/* What the scheduler keeps per CPU (percpu's current aside). */
struct sched_cpu {
    struct thread *idle;   /* runs when nothing else can; never queued */
    uint64_t next_tick_ns; /* when the running thread's slice ends */
    uint64_t armed_ns;     /* what this CPU's one-shot is set for */
    /* Written by this CPU only, interrupts off; odd idle_seq: mid-write. */
    uint32_t idle_seq;
    uint64_t idle_ns;    /* halted, summed */
    uint64_t halt_since; /* when the open halt began; 0 when none is open */
};
static struct sched_cpu sched_cpus[MAX_CPUS];
static unsigned halted_cpus; /* bit c: CPU c is in safe_halt, or about to be */
_Static_assert(MAX_CPUS <= 32, "halted_cpus has a bit per CPU");

static struct sched_cpu *this_sched(void)
{
    return this_cpu_elem(sched_cpus);
}

#define current (this_cpu()->thread)

/* A thread t just joined the run queue: if some other CPU that may run
 * it is halted, wake one to take it. The IPI may land before that CPU
 * reaches its halt; safe_halt then returns at once (natively sti's shadow
 * keeps the interrupt pending until hlt; under Xen the event is pending). */
static void wake_idle_cpu(const struct thread *t)
{
    unsigned others = halted_cpus & ~(1u << cpu_index());

    if (t->cpu >= 0)
        others &= 1u << t->cpu;
    if (others == 0)
        return;
    unsigned c = (unsigned)__builtin_ctz(others);
    halted_cpus &= ~(1u << c);
    pv_cpu_ops.send_ipi(c);
}

static void enqueue(struct thread *t)
{
    t->state = THREAD_RUNNABLE;
    thread_list_push_back(&run_queue, t);
    wake_idle_cpu(t);
}

/* The first queued thread this CPU may run, left on the queue; NULL if
 * there is none. */
static struct thread *first_runnable_here(void)
{
    struct thread *t = run_queue.head;

    while (t && t->cpu >= 0 && t->cpu != (int)cpu_index())
        t = t->next;
    return t;
}

/* Sets this CPU's idle record as one change to sched_idle_ns(), which
 * reads again while idle_seq is odd or moved: read between the two
 * fields' stores, a closed halt would count twice (in idle_ns and still
 * open) or not at all. x86 keeps stores in order and loads in order, so
 * release stores and acquire loads suffice. */
static void idle_record(struct sched_cpu *c, uint64_t idle_ns, uint64_t halt_since)
{
    __atomic_store_n(&c->idle_seq, c->idle_seq + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&c->idle_ns, idle_ns, __ATOMIC_RELEASE);
    __atomic_store_n(&c->halt_since, halt_since, __ATOMIC_RELEASE);
    __atomic_store_n(&c->idle_seq, c->idle_seq + 1, __ATOMIC_RELEASE);
}

/* Ends this CPU's open halt, if any, into its idle time. Interrupts
 * disabled, so a tick that switches away cannot close it twice. */
static void halt_close(struct sched_cpu *c)
{
    if (c->halt_since)
        idle_record(c, c->idle_ns + (time_now_ns() - c->halt_since), 0);
}

/* Runs the first runnable thread, or the idle thread if there is none.
 * Call with sched_lock held, interrupts disabled, and current already
 * where its state says (run queue, sleep list, a wait queue, nowhere).
 * Returns when current is switched back in, holding sched_lock again:
 * whoever switched to it took the lock, and current now owns it. */
static void switch_away(void)
{
    struct thread *prev = current;
    struct thread *next = first_runnable_here();

    if (next)
        thread_list_remove(&run_queue, next);
    else
        next = this_sched()->idle;
    next->state = THREAD_RUNNING;
    if (next == prev)
        return;
    if (prev == this_sched()->idle)
        halt_close(this_sched()); /* a tick out of the halt ran a thread */
    stack_check_thread(prev, (uint64_t)__builtin_frame_address(0));
    current = next;
    switches++;
    context_switch(&prev->context, next->context);
}

/* Moves the running thread to the back of the run queue. The idle thread
 * is never queued: it runs only when the queue is empty. No other CPU is
 * woken for it: this one is about to pick from the queue itself. */
static void requeue_current(void)
{
    if (current == this_sched()->idle)
        return;
    current->state = THREAD_RUNNABLE;
    thread_list_push_back(&run_queue, current);
}

/* Sets the one-shot for the end of the slice or the first sleeper's
 * deadline, whichever comes first. */
static void arm_timer(void)
{
    struct sched_cpu *c = this_sched();
    uint64_t when = c->next_tick_ns;

    if (!thread_list_empty(&sleepers) && sleepers.head->wake_ns < when)
        when = sleepers.head->wake_ns;
    c->armed_ns = when;
    timer_arm(when);
}

static void wake_sleepers(uint64_t now)
{
    while (!thread_list_empty(&sleepers) && sleepers.head->wake_ns <= now) {
        enqueue(thread_list_pop_front(&sleepers));
    }
}

/* The timer callback: interrupt context, interrupts disabled. A thread
 * woken from sleep runs at once if the CPU was idle, else at the next
 * slice boundary. */
static void sched_tick(void)
{
    uint64_t now = time_now_ns();

    raw_spin_lock(&sched_lock);
    struct sched_cpu *c = this_sched();
    wake_sleepers(now);
    bool slice_over = now >= c->next_tick_ns;
    if (slice_over)
        c->next_tick_ns = now + slice_ns;
    arm_timer();
    bool preempt =
        first_runnable_here() && (slice_over || current == c->idle || current->preempt_missed);
    if (preempt && current->no_preempt) {
        current->preempt_missed = true; /* sched_preempt_enable yields */
        deferrals++;
    } else if (preempt) {
        current->preempt_missed = false;
        if (current != c->idle)
            preemptions++;
        requeue_current();
        switch_away();
    }
    raw_spin_unlock(&sched_lock);
}

void thread_yield(void)
{
    unsigned long flags = raw_spin_lock_irqsave(&sched_lock);

    requeue_current();
    switch_away();
    raw_spin_unlock_irqrestore(&sched_lock, flags);
}

void sched_preempt_disable(void)
{
    preempt_disable();
}

void sched_preempt_enable(void)
{
    preempt_enable();
}

/* With interrupts off (an irqsave lock still held, a handler) the yield
 * waits: the next tick takes the missed preemption instead. */
void sched_preempt_missed(void)
{
    if (irq_save_flags() & X86_EFLAGS_IF) {
        current->preempt_missed = false;
        thread_yield();
    }
}

void sleep_until(uint64_t deadline_ns)
{
    unsigned long flags = raw_spin_lock_irqsave(&sched_lock);

    if (time_now_ns() < deadline_ns) {
        current->wake_ns = deadline_ns;
        current->state = THREAD_SLEEPING;
        thread_list_insert_by_wake(&sleepers, current);
        if (deadline_ns < this_sched()->armed_ns)
            arm_timer();
        switch_away();
    }
    raw_spin_unlock_irqrestore(&sched_lock, flags);
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
    enqueue(t);
}

void sched_make_runnable(struct thread *t)
{
    unsigned long flags = raw_spin_lock_irqsave(&sched_lock);

    enqueue(t);
    raw_spin_unlock_irqrestore(&sched_lock, flags);
}

/* The lock is not released: the next thread to run does that, once this
 * stack is no longer in use. Hence DEAD, seen under sched_lock, means the
 * stack is free. */
void thread_exit(void)
{
    raw_spin_lock_irqsave(&sched_lock);
    if (current == &boot_thread || current == this_sched()->idle)
        panic("sched: thread %s cannot exit", current->name);
    current->state = THREAD_DEAD;
    if (current->joiner)
        sched_wake_locked(current->joiner);
    switch_away();
    panic("sched: dead thread %s ran again", current->name);
}

void sched_wait_dead(struct thread *t)
{
    unsigned long flags = raw_spin_lock_irqsave(&sched_lock);

    if (t->joiner && t->joiner != current)
        panic("sched: thread %s joined by two threads", t->name);
    while (t->state != THREAD_DEAD) {
        t->joiner = current;
        sched_block_locked();
    }
    t->joiner = 0;
    raw_spin_unlock_irqrestore(&sched_lock, flags);
}

void sched_finish_first_switch(void)
{
    raw_spin_unlock(&sched_lock);
}

/* Before halting, an idle CPU watches the run queue for a while (halt
 * polling, as Linux's haltpoll guests do): a thread queued meanwhile
 * starts without the IPI and the wake-up from hlt or SCHEDOP_block, which
 * under emulation or a hypervisor costs far more than the thread's work.
 * Only with several CPUs: alone, nothing but an interrupt can add work. */
static uint64_t idle_poll_us = 100;
OPTION_UINT(idle_poll_us, "sched.idle_poll_us", 0, 100000,
            "how long an idle CPU watches the run queue before it halts (several CPUs only)");

static void poll_for_work(void)
{
    if (smp_cpus_online() < 2 || idle_poll_us == 0)
        return;
    uint64_t end = time_now_ns() + idle_poll_us * NSEC_PER_USEC;
    /* An unlocked peek: a hint only; the check below is made under the lock. */
    while (!__atomic_load_n(&run_queue.head, __ATOMIC_RELAXED) && time_now_ns() < end)
        __builtin_ia32_pause();
}

/* Checks for work with interrupts disabled, so a wake-up from an interrupt
 * cannot fall between the check and the halt: safe_halt() enables them
 * and waits in one step. A CPU that finds nothing says so (halted) under
 * sched_lock, so whoever queues a thread next sends it an IPI. The tick
 * switches away from idle when it wakes a sleeper; a thread queued any
 * other way is found on the next pass. The halt (hlt natively, a blocked
 * vCPU under Xen) is this CPU's idle time, from before it to its return
 * or a switch away; an interrupt taken out of it counts in it, so
 * sched_idle_ns() errs towards idle. */
static void idle_loop(void *unused)
{
    (void)unused;
    for (;;) {
        poll_for_work();
        irq_disable();
        raw_spin_lock(&sched_lock);
        bool nothing_to_run = !first_runnable_here();
        if (nothing_to_run)
            halted_cpus |= 1u << cpu_index();
        else
            halted_cpus &= ~(1u << cpu_index());
        raw_spin_unlock(&sched_lock);
        if (nothing_to_run) {
            idle_record(this_sched(), this_sched()->idle_ns, time_now_ns());
            safe_halt();
            irq_disable();
            halt_close(this_sched());
            irq_enable();
        } else {
            irq_enable();
            thread_yield();
        }
    }
}

/* This CPU's idle thread and slice timer: before it runs any thread. */
static void sched_cpu_init(struct thread *idle)
{
    struct sched_cpu *c = this_sched();

    c->idle = idle;
    c->next_tick_ns = time_now_ns() + slice_ns;
    arm_timer();
}

void sched_init(void)
{
    struct thread *idle = thread_alloc("idle0", idle_loop, 0);

    if (!idle)
        panic("sched: no stack slot for the idle thread");
    slice_ns = slice_ms * NSEC_PER_MSEC;
    current = &boot_thread;
    unsigned long flags = raw_spin_lock_irqsave(&sched_lock);
    timer_set_callback(sched_tick);
    sched_cpu_init(idle);
    raw_spin_unlock_irqrestore(&sched_lock, flags);
    irq_enable();
    kprintf("sched: round robin, %lu ms slices, %s spinlocks\n", slice_ms, spin_lock_kind());
}

void sched_run_idle(struct thread *idle)
{
    raw_spin_lock(&sched_lock);
    idle->state = THREAD_RUNNING;
    current = idle;
    sched_cpu_init(idle);
    raw_spin_unlock(&sched_lock);
    idle_loop(0);
    panic("sched: the idle loop returned");
}

/* Another CPU may open or close its halt while this reads: a record read
 * mid-write (idle_record) is read again. */
uint64_t sched_idle_ns(void)
{
    uint64_t sum = 0, now = time_now_ns();

    for (unsigned i = 0; i < smp_cpus_online(); i++) {
        const struct sched_cpu *c = &sched_cpus[i];
        uint64_t idle, since;
        uint32_t seq;

        do {
            seq = __atomic_load_n(&c->idle_seq, __ATOMIC_ACQUIRE);
            idle = __atomic_load_n(&c->idle_ns, __ATOMIC_ACQUIRE);
            since = __atomic_load_n(&c->halt_since, __ATOMIC_ACQUIRE);
        } while ((seq & 1) || seq != __atomic_load_n(&c->idle_seq, __ATOMIC_ACQUIRE));
        sum += idle + (since && now > since ? now - since : 0);
    }
    return sum;
}

struct thread *thread_current(void)
{
    return this_cpu_current();
}

uint64_t sched_preemptions(void)
{
    return preemptions;
}

uint64_t sched_preemptions_deferred(void)
{
    return deferrals;
}

uint64_t sched_switches(void)
{
    return switches;
}
