/* What reading the kernel's clock costs: time_now_ns() through the time
 * ops. Natively and in dom0 that is rdtsc and a scale; in a Xen domU
 * Xen emulates rdtsc (docs/xen.md, "What Xen does to a domU's clock"),
 * so every read is a trap into Xen. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/time.h"

#define CLOCK_ITERS 10000

static volatile uint64_t clock_sink;

/* The or keeps every read live; it is part of what one op costs. */
static uint64_t measure_clock_read(uint64_t n)
{
    uint64_t all = 0;
    uint64_t t = BENCH_TIME_LOOP(n, all |= time_now_ns());

    clock_sink = all;
    return t;
}

BENCH_DEFINE(clock_read, time, "`time_now_ns()`: the TSC scaled by the time ops",
             .iters = CLOCK_ITERS, .subtract_loop = true, .measure = measure_clock_read);
