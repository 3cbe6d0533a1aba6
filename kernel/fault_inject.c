/* fault=pf|ud|gp|de|stack: deliberate faults, so the tests can check that a
 * fault prints a register dump and ends the run with a failure status. */
#include "kernel/main.h"

#include <stdint.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"

enum fault_kind { FAULT_NONE, FAULT_PF, FAULT_UD, FAULT_GP, FAULT_DE, FAULT_STACK };

static const char *const fault_choices[] = {"none", "pf", "ud", "gp", "de", "stack", 0};
static int fault_kind = FAULT_NONE;
OPTION_ENUM(fault_kind, "fault", fault_choices, "commit a deliberate fault after boot");

#define UNMAPPED_ADDRESS 0x8 /* page 0 is never mapped */
#define NON_CANONICAL_ADDRESS 0x8000000000000000ULL

/* Each frame takes 256 bytes of stack until the guard page is hit; the
 * depth test only keeps the compiler from calling the recursion infinite. */
__attribute__((noinline)) static uint64_t recurse_deeply(volatile uint64_t depth)
{
    volatile uint8_t pad[256];

    pad[0] = (uint8_t)depth;
    if (depth == UINT64_MAX)
        return 0;
    return recurse_deeply(depth + 1) + pad[0];
}

void fault_inject_run(void)
{
    volatile uint64_t one = 1, zero = 0, quotient;
    volatile uint64_t *volatile unmapped = (uint64_t *)UNMAPPED_ADDRESS;
    volatile uint64_t *volatile non_canonical = (uint64_t *)NON_CANONICAL_ADDRESS;

    if (fault_kind == FAULT_NONE)
        return;
    kprintf("fault: committing a deliberate %s fault\n", fault_choices[fault_kind]);
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
        recurse_deeply(0);
        break;
    }
    kprintf("fault: the %s fault did not trap\n", fault_choices[fault_kind]);
}
