/* From repetitions to the two figures a result line reports. Values are
 * fixed point: hundredths of a TSC tick per op. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct bench_summary {
    uint64_t min;    /* hundredths per op */
    uint64_t median; /* hundredths per op; the mean of the middle two for an even count */
};

/* Hundredths of a tick per op for n ops that took ticks, less overhead
 * (hundredths per op), never below zero. */
uint64_t bench_per_op(uint64_t ticks, uint64_t n, uint64_t overhead);

/* Sorts samples[0..count) and summarises them; count >= 1. */
struct bench_summary bench_summarise(uint64_t samples[], size_t count);

/* How every benchmark is measured, in the kernel and in the program for
 * Linux alike: measure(n) once to warm up (caches, lazily built state),
 * then reps times into samples[0..reps), each as hundredths per op less
 * overhead, summarised. */
struct bench_summary bench_repeat(uint64_t (*measure)(uint64_t n), uint64_t n, uint64_t samples[],
                                  size_t reps, uint64_t overhead);

/* The result line, printed alike by the kernel's runner and the program
 * for Linux, and read by tools/pbtools/result_lines.py: BENCH_RESULT_FORMAT with
 * BENCH_RESULT_ARGS, and a failure's line with BENCH_FAILED_FORMAT. */
#define BENCH_RESULT_FORMAT                                                                        \
    "bench: name=%s config=%s iters=%lu reps=%lu min=%lu.%02lu median=%lu.%02lu unit=%s\n"
#define BENCH_RESULT_ARGS(name, config, n, reps, s, unit)                                          \
    (name), (config), (unsigned long)(n), (unsigned long)(reps), (unsigned long)((s).min / 100),   \
        (unsigned long)((s).min % 100), (unsigned long)((s).median / 100),                         \
        (unsigned long)((s).median % 100), (unit)
#define BENCH_FAILED_FORMAT "bench: name=%s config=%s failed=\"%s\"\n"

#endif
