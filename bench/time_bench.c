/* What the kernel's clock and timer cost: time_now_ns() through the time
 * ops (natively and in dom0 rdtsc and a scale; in a Xen PV domU Xen
 * emulates rdtsc, docs/xen.md, "What Xen does to a domU's clock", so
 * every read is a trap into Xen), and arming the one-shot timer: natively
 * a write of the LAPIC's initial count, under Xen a hypercall, under PVH
 * either (xen.timer=). */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/time.h"
#include "pv/irq.h"

#define CLOCK_ITERS 10000
#define TIMER_ITERS 2000
#define TIMER_AHEAD_NS NSEC_PER_SEC /* far enough never to fire during the loop */

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

/* Interrupts off, so the scheduler's tick cannot arm in between; its
 * deadline is armed again afterwards. */
static uint64_t measure_timer_arm(uint64_t n)
{
    unsigned long flags = irq_save();
    uint64_t saved = timer_deadline(), ahead = time_now_ns() + TIMER_AHEAD_NS;
    uint64_t t = BENCH_TIME_LOOP(n, timer_arm(ahead));

    if (saved)
        timer_arm(saved);
    irq_restore(flags);
    return t;
}

BENCH_DEFINE(timer_arm, time, "`timer_arm()` of a deadline 1 s ahead: one one-shot programmed",
             .iters = TIMER_ITERS, .subtract_loop = true, .measure = measure_timer_arm);
