/* Converting counts of one clock into counts of another with a multiply
 * and a shift, no division per call: out = (in * mult) >> shift, the
 * product taken in 128 bits. Pure arithmetic, shared by every backend and
 * tested on the host (tests/unit/test_clock_scale.c). */
#ifndef KERNEL_CLOCK_SCALE_H
#define KERNEL_CLOCK_SCALE_H

#include <stdbool.h>
#include <stdint.h>

struct clock_scale {
    uint32_t mult;
    uint32_t shift;
};

/* Sets s to turn counts of a from_hz clock into counts of a to_hz clock,
 * e.g. TSC ticks into ns (to_hz = 1e9). Returns false, leaving s alone, if
 * from_hz is 0 or to_hz / from_hz is 2^32 or more. */
bool clock_scale_init(struct clock_scale *s, uint64_t from_hz, uint64_t to_hz);

/* n converted, rounded down; UINT64_MAX when the result does not fit. */
static inline uint64_t clock_scale_apply(const struct clock_scale *s, uint64_t n)
{
    unsigned __int128 out = ((unsigned __int128)n * s->mult) >> s->shift;

    return out > UINT64_MAX ? UINT64_MAX : (uint64_t)out;
}

#endif
