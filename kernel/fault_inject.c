/* fault=pf|ud|gp|de|stack|guard|thread-stack|canary|wl-mutator|wl-handler|cli:
 * deliberate faults, so the tests can check that each one prints a dump
 * and ends the run with one verdict line and a failure status, on every
 * door. fault=cli runs an unpatched cli: legal in ring 0, a #GP in a Xen
 * PV kernel, which runs in ring 3. fault.cpu=N has a thread running on
 * CPU N commit it, so the trap path is tested on a secondary CPU too. */
#include "kernel/fault_inject.h"

#include <stdint.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "kernel/write_barrier.h"
#include "arch/x86/cpu.h"
#include "pv/irq.h"

enum fault_kind {
    FAULT_NONE,
    FAULT_PF,
    FAULT_UD,
    FAULT_GP,
    FAULT_DE,
    FAULT_STACK,
    FAULT_GUARD,
    FAULT_THREAD_STACK,
    FAULT_CANARY,
    FAULT_WL_MUTATOR,
    FAULT_WL_HANDLER,
    FAULT_CLI,
};

/* In enum fault_kind's order. */
static const char *const fault_choices[] = {
    "none",         "pf",     "ud",         "gp",         "de",  "stack", "guard",
    "thread-stack", "canary", "wl-mutator", "wl-handler", "cli", 0};
static int fault_kind = FAULT_NONE;
OPTION_ENUM(fault_kind, "fault", fault_choices, "commit a deliberate fault after boot");

/* Unset, the fault is committed wherever the boot thread runs. */
#define FAULT_ANY_CPU UINT64_MAX
static uint64_t fault_cpu = FAULT_ANY_CPU;
OPTION_UINT(fault_cpu, "fault.cpu", 0, MAX_CPUS - 1, "the CPU that commits the fault");

/* How long the threads of fault.cpu= look for their CPU before the run
 * ends saying none found it: far longer than placing them takes. */
#define SEEK_TIMEOUT_NS (1000 * NSEC_PER_MSEC)
static uint64_t seek_deadline_ns;

#define UNMAPPED_ADDRESS 0x8 /* page 0 is never mapped */
#define NON_CANONICAL_ADDRESS 0x8000000000000000ULL

/* Each frame takes 256 bytes of stack. Checked, it is what deep recursion
 * in the kernel should be: it stops with a report naming the stack before
 * the stack runs out. Unchecked, it runs into the guard page. The depth
 * test only keeps the compiler from calling the recursion infinite. */
__attribute__((noinline)) static uint64_t recurse_deeply(volatile uint64_t depth, int checked)
{
    volatile uint8_t pad[256];

    if (checked)
        stack_check();
    pad[0] = (uint8_t)depth;
    if (depth == UINT64_MAX)
        return 0;
    return recurse_deeply(depth + 1, checked) + pad[0];
}

static void recurse_in_thread(void *arg)
{
    (void)arg;
    recurse_deeply(0, 1);
}

/* What an overflow that jumped the red zone in one frame would leave: the
 * canary overwritten. The switch away must notice. */
static void smash_canary_and_yield(void *arg)
{
    (void)arg;
    *thread_current()->stack_bottom = 0;
    thread_yield();
}

static void announce(void)
{
    if (fault_cpu == FAULT_ANY_CPU)
        kprintf("fault: committing a deliberate %s fault\n", fault_choices[fault_kind]);
    else
        kprintf("fault: committing a deliberate %s fault on cpu %u\n", fault_choices[fault_kind],
                cpu_index());
}

static bool in_workload(int kind)
{
    return kind == FAULT_WL_MUTATOR || kind == FAULT_WL_HANDLER;
}

/* A workload fault happens only where the workload runs. */
static const char *workload_fault_needs_wl(void)
{
    static char why[96];

    if (!in_workload(fault_kind) || write_barrier_wanted())
        return NULL;
    ksnprintf(why, sizeof(why), "fault=%s is a fault inside the workload: it needs wl=on",
              fault_choices[fault_kind]);
    return why;
}
OPTION_CHECK(workload_fault_needs_wl);

/* fault.cpu= places only a fault the seeking thread commits itself: the
 * others happen in whatever thread reaches their code, on any CPU. */
static const char *fault_cpu_places_the_fault(void)
{
    static char why[96];

    if (fault_cpu == FAULT_ANY_CPU)
        return NULL;
    if (fault_kind == FAULT_NONE)
        return "fault.cpu= places the fault fault= names, and it names none";
    if (!in_workload(fault_kind) && fault_kind != FAULT_THREAD_STACK && fault_kind != FAULT_CANARY)
        return NULL;
    ksnprintf(why, sizeof(why),
              "fault.cpu= cannot place a %s fault, only pf|ud|gp|de|stack|guard|cli",
              fault_choices[fault_kind]);
    return why;
}
OPTION_CHECK(fault_cpu_places_the_fault);

/* Every mutator passes the point, so only the first commits the fault:
 * two announcing at once, one preempted mid-line, garbled the line. */
static void commit_at_point(enum write_barrier_point point)
{
    static bool claimed;
    volatile uint64_t *volatile unmapped = (uint64_t *)UNMAPPED_ADDRESS;

    if ((point == WL_IN_MUTATOR && fault_kind == FAULT_WL_MUTATOR) ||
        (point == WL_IN_WRITE_HANDLER && fault_kind == FAULT_WL_HANDLER)) {
        if (__atomic_exchange_n(&claimed, true, __ATOMIC_ACQ_REL))
            return;
        announce();
        *unmapped = 1;
    }
}

void fault_inject_arm(void)
{
    if (in_workload(fault_kind))
        write_barrier_on_point(commit_at_point);
}

static void commit(void)
{
    volatile uint64_t one = 1, zero = 0, quotient;
    volatile uint64_t *volatile unmapped = (uint64_t *)UNMAPPED_ADDRESS;
    volatile uint64_t *volatile non_canonical = (uint64_t *)NON_CANONICAL_ADDRESS;
    struct thread *t;

    switch (fault_kind) {
    case FAULT_PF:
        *unmapped = 1;
        break;
    case FAULT_UD:
        __builtin_trap(); /* an undefined instruction (ud2 on x86) */
        break;
    case FAULT_GP:
        (void)*non_canonical;
        break;
    case FAULT_DE:
        quotient = one / zero;
        (void)quotient;
        break;
    case FAULT_STACK:
    case FAULT_GUARD:
        recurse_deeply(0, fault_kind == FAULT_STACK);
        break;
    case FAULT_THREAD_STACK:
    case FAULT_CANARY:
        t = fault_kind == FAULT_CANARY ? thread_create("thread smashing", smash_canary_and_yield, 0)
                                       : thread_create("thread recursing", recurse_in_thread, 0);
        if (t)
            thread_join(t);
        break;
    case FAULT_CLI:
        raw_cli();
        kprintf("fault: cli ran in ring %u without a trap\n", current_ring());
        break;
    }
}

/* What follows a fault that returned: fault=cli in ring 0, where it is
 * legal (natively, PVH), which the verdict says was expected; or a bug. */
static __attribute__((noreturn)) void did_not_trap(void)
{
    kprintf("fault: the %s fault did not trap\n", fault_choices[fault_kind]);
    if (fault_kind == FAULT_CLI && current_ring() == 0)
        kernel_exit(EXIT_FAILURE, "the deliberate fault did not trap, as expected: cli is legal "
                                  "in ring 0; only a Xen PV kernel, in ring 3, traps");
    kernel_exit(EXIT_FAILURE, "the deliberate fault did not trap");
}

/* The scheduler cannot pin a thread, and a thread that yields alone on a
 * CPU gets that same CPU back. So one of these runs per CPU online, and
 * none yields: once each CPU has one, the run queue is empty, the tick
 * moves none of them, and the one on fault.cpu commits the fault. It
 * reads its CPU and faults with interrupts disabled, so it cannot move
 * in between. The others spin until the run ends, or give up at the
 * deadline. */
static void seek_cpu_and_commit(void *arg)
{
    (void)arg;
    while (time_now_ns() < seek_deadline_ns) {
        unsigned long flags = irq_save();
        if (cpu_index() == fault_cpu) {
            announce();
            commit();
            did_not_trap();
        }
        irq_restore(flags);
        __builtin_ia32_pause();
    }
}

/* fault.cpu=N: the fault, committed by a thread running on CPU N. */
static __attribute__((noreturn)) void commit_on_chosen_cpu(void)
{
    unsigned online = smp_cpus_online(), started = 0;
    struct thread *seekers[MAX_CPUS];

    if (fault_cpu >= online) {
        kprintf("fault: fault.cpu=%lu, but only %u CPU%s online\n", fault_cpu, online,
                online == 1 ? " is" : "s are");
        kernel_exit(EXIT_CMDLINE, "cmdline: fault.cpu= names no CPU online");
    }
    seek_deadline_ns = time_now_ns() + SEEK_TIMEOUT_NS;
    while (started < online &&
           (seekers[started] = thread_create("fault seeker", seek_cpu_and_commit, 0)))
        started++;
    for (unsigned i = 0; i < started; i++)
        thread_join(seekers[i]);
    kprintf("fault: none of %u threads ran on cpu %lu within %lu ms\n", started, fault_cpu,
            SEEK_TIMEOUT_NS / NSEC_PER_MSEC);
    kernel_exit(EXIT_FAILURE, "the deliberate fault never reached its CPU");
}

void fault_inject_run(void)
{
    if (fault_kind == FAULT_NONE)
        return;
    /* The workload ran (workload_fault_needs_wl) and went past it. */
    if (in_workload(fault_kind)) {
        kprintf("fault: the workload never reached the %s fault point\n",
                fault_choices[fault_kind]);
        kernel_exit(EXIT_FAILURE, "the chosen fault point was never reached");
    }
    if (fault_cpu != FAULT_ANY_CPU)
        commit_on_chosen_cpu();
    announce();
    commit();
    did_not_trap();
}
