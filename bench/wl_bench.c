/* The write-barrier workload (kernel/write_barrier.c), one collection
 * cycle per op: the mutators' writes, one fault and one single-page
 * mprotect for each page first written, the collector's checks, and one
 * mprotect of the whole heap. The mprotect-heavy load the 2008 pte
 * batching was for, as a whole rather than one call. */
#include "bench/bench.h"
#include "kernel/write_barrier.h"

#define WL_CYCLES 2

static uint64_t faults;

static const char *prepare_wl(void)
{
    faults = 0;
    return 0;
}

/* The workload panics on any wrong page; here, only that the barrier
 * fired at all. */
static const char *check_wl(void)
{
    return faults ? 0 : "no write faulted: the heap was never write-protected";
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
