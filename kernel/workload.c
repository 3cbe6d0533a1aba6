/* The workloads' holders: a short table, filled during boot from thread
 * context before any workload reads it, then only read. */
#include "kernel/workload.h"

#include "kernel/exit.h"

#define MAX_HOLDS 4

static workload_hold_fn holds[MAX_HOLDS];
static unsigned nr_holds;

void workload_add_hold(workload_hold_fn hold)
{
    if (nr_holds == MAX_HOLDS)
        panic("workload: more than %u holders", MAX_HOLDS);
    holds[nr_holds++] = hold;
}

bool workload_held(void)
{
    for (unsigned i = 0; i < nr_holds; i++)
        if (holds[i]())
            return true;
    return false;
}
