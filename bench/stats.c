#include "bench/stats.h"

uint64_t bench_per_op(uint64_t ticks, uint64_t n, uint64_t overhead)
{
    uint64_t per_op = n ? ticks * 100 / n : 0;

    return per_op > overhead ? per_op - overhead : 0;
}

/* Insertion sort: at most a few dozen repetitions. */
static void sort(uint64_t v[], size_t count)
{
    for (size_t i = 1; i < count; i++) {
        uint64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

struct bench_summary bench_summarise(uint64_t samples[], size_t count)
{
    struct bench_summary s;

    sort(samples, count);
    s.min = samples[0];
    if (count % 2)
        s.median = samples[count / 2];
    else
        s.median = (samples[count / 2 - 1] + samples[count / 2]) / 2;
    return s;
}

struct bench_summary bench_repeat(uint64_t (*measure)(uint64_t n), uint64_t n, uint64_t samples[],
                                  size_t reps, uint64_t overhead)
{
    measure(n);
    for (size_t r = 0; r < reps; r++)
        samples[r] = bench_per_op(measure(n), n, overhead);
    return bench_summarise(samples, reps);
}
