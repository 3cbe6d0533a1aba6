#include "kernel/clock_scale.h"

#define CLOCK_SCALE_MAX_SHIFT 32

/* The largest shift whose rounded mult still fits 32 bits keeps the most
 * bits of the ratio: for ratios from 1/2 up, mult is at least 2^31 and the
 * relative error at most 2^-32 (a 10 GHz TSC to ns: 1.2e-9). */
bool clock_scale_init(struct clock_scale *s, uint64_t from_hz, uint64_t to_hz)
{
    if (from_hz == 0)
        return false;
    for (int shift = CLOCK_SCALE_MAX_SHIFT; shift >= 0; shift--) {
        if (to_hz > (UINT64_MAX - from_hz / 2) >> shift)
            continue; /* to_hz << shift, plus rounding, would overflow */
        uint64_t mult = ((to_hz << shift) + from_hz / 2) / from_hz;
        if (mult <= UINT32_MAX) {
            s->mult = (uint32_t)mult;
            s->shift = (uint32_t)shift;
            return true;
        }
    }
    return false;
}
