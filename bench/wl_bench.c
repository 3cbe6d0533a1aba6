/* The write-barrier workload (kernel/write_barrier.c), one collection
 * cycle per op: the mutators' writes, one fault and one single-page
 * mprotect for each page first written, the collector's checks, and one
 * mprotect of the whole heap. The mprotect-heavy load the 2008 pte
 * batching was for, as a whole rather than one call. */
#include "bench/bench.h"
#include "kernel/console.h"
#include "kernel/sched.h"
#include "kernel/write_barrier.h"

#define WL_CYCLES 2

static uint64_t faults, deferred;

static const char *prepare_wl(void)
{
    faults = 0;
    deferred = sched_preemptions_deferred();
    return 0;
}

/* The workload panics on any wrong page; here, only that the barrier
 * fired at all. The preemptions that waited for a lock's release are
 * the ticks that landed in a held vm_lock: the convoy that never forms. */
static const char *check_wl(void)
{
    if (!faults)
        return "no write faulted: the heap was never write-protected";
    kprintf("bench: detail=wl_cycle faults=%lu preemptions_deferred=%lu\n", faults,
            sched_preemptions_deferred() - deferred);
    return 0;
}

static uint64_t measure_wl(uint64_t n)
{
    return write_barrier_bench_cycles(n, &faults);
}

BENCH_DEFINE(wl_cycle, pte,
             "one cycle of the write-barrier workload (`wl.pages=`, default 2048): the mutators' "
             "writes, a fault and a one-page mprotect per page first written, the collector's "
             "checksums, one mprotect of the whole heap",
             .iters = WL_CYCLES, .every_cpu = true, .prepare = prepare_wl, .measure = measure_wl,
             .check = check_wl);
