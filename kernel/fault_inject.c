/* fault=pf|ud|gp|de|stack|guard|thread-stack|canary|wl-mutator|wl-handler|cli:
 * deliberate faults, so the tests can check that each one prints a dump
 * and ends the run with one verdict line and a failure status, on every
 * door. fault=cli runs an unpatched cli: legal in ring 0, a #GP in a Xen
 * PV kernel, which runs in ring 3. */
#include "kernel/fault_inject.h"

#include <stdint.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/thread.h"
#include "arch/x86/cpu.h"

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
    kprintf("fault: committing a deliberate %s fault\n", fault_choices[fault_kind]);
}

void fault_inject_point(enum fault_point point)
{
    volatile uint64_t *volatile unmapped = (uint64_t *)UNMAPPED_ADDRESS;

    if ((point == FAULT_IN_MUTATOR && fault_kind == FAULT_WL_MUTATOR) ||
        (point == FAULT_IN_WRITE_HANDLER && fault_kind == FAULT_WL_HANDLER)) {
        announce();
        *unmapped = 1;
    }
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

void fault_inject_run(void)
{
    if (fault_kind == FAULT_NONE)
        return;
    if (fault_kind == FAULT_WL_MUTATOR || fault_kind == FAULT_WL_HANDLER) {
        kprintf("fault: %s is a fault inside the workload, which did not run (add wl=on)\n",
                fault_choices[fault_kind]);
        kernel_exit(EXIT_FAILURE, "the chosen fault point was never reached");
    }
    announce();
    commit();
    kprintf("fault: the %s fault did not trap\n", fault_choices[fault_kind]);
    kernel_exit(EXIT_FAILURE, "the deliberate fault did not trap");
}
