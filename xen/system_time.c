#include "xen/system_time.h"

uint64_t xen_tsc_delta_to_ns(uint64_t delta, uint32_t tsc_to_system_mul, int8_t tsc_shift)
{
    /* Xen's shifts are small; a shift by 64 or more would be undefined C. */
    if (tsc_shift <= -64 || tsc_shift >= 64)
        return 0;
    if (tsc_shift < 0)
        delta >>= -tsc_shift;
    else
        delta <<= tsc_shift;
    /* Bits 32..95 of the 64x32-bit product, in 64-bit pieces: neither
     * partial product overflows, and their sum is below 2^64. */
    uint64_t low = (delta & 0xffffffffu) * tsc_to_system_mul;
    uint64_t high = (delta >> 32) * tsc_to_system_mul;
    return high + (low >> 32);
}

/* Xen ABI: tsc_timestamp can be below zero, wrapped (gtime_to_gtsc of a
 * calibration older than the domU): subtract modulo 2^64, then compare. */
uint64_t xen_system_time_ns(const struct vcpu_time_info *t, uint64_t tsc)
{
    int64_t delta = (int64_t)(tsc - t->tsc_timestamp);

    if (delta <= 0)
        return t->system_time;
    return t->system_time +
           xen_tsc_delta_to_ns((uint64_t)delta, t->tsc_to_system_mul, t->tsc_shift);
}

/* In unsigned arithmetic: the offset wraps to below zero where the new
 * host's system time is ahead of the clock. */
int64_t xen_resume_offset(const struct xen_clock_stop *stop, uint64_t system_ns, uint64_t wall_ns)
{
    uint64_t pause = wall_ns > stop->wall_ns ? wall_ns - stop->wall_ns : 0;

    return (int64_t)(stop->clock_ns + pause - system_ns);
}
