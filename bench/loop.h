/* The benchmarks' clock and their common loop.
 *
 * The clock is the TSC on every platform, so all count in the same unit.
 * Natively and in a PV dom0 rdtsc runs without a trap; in a domU, and in
 * a PVH dom0 under QEMU, Xen emulates it, at the same rate, and only the
 * two reads around the loop pay that (part of one such exit falls inside
 * the interval: the report's PVH section says how much).
 * Under QEMU's
 * -icount shift=0 it advances by one per guest instruction (the
 * hypervisor's included); otherwise under TCG it follows host time. */
#ifndef BENCH_LOOP_H
#define BENCH_LOOP_H

#include <stdint.h>

/* lfence keeps rdtsc from being taken before the work ahead of it. */
static inline uint64_t bench_cycles(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Runs body n times. The empty asm is a compiler barrier, so an empty body
 * still leaves a real loop: the runner times BENCH_LOOP(n, ) and takes its
 * cost per iteration off every benchmark with subtract_loop set. */
#define BENCH_LOOP(n, body)                                                                        \
    do {                                                                                           \
        for (uint64_t i_ = 0; i_ < (n); i_++) {                                                    \
            body;                                                                                  \
            __asm__ volatile("" : : : "memory");                                                   \
        }                                                                                          \
    } while (0)

/* The ticks BENCH_LOOP(n, body) takes, as a statement expression. */
#define BENCH_TIME_LOOP(n, body)                                                                   \
    ({                                                                                             \
        uint64_t t0_ = bench_cycles();                                                             \
        BENCH_LOOP(n, body);                                                                       \
        bench_cycles() - t0_;                                                                      \
    })

#endif
