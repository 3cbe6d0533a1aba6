#include "arch/x86/pvclock.h"

uint64_t pvclock_scale_delta(uint64_t delta, uint32_t tsc_to_system_mul, int8_t tsc_shift)
{
    /* The hypervisors' shifts are small; a shift by 64 or more would be undefined C. */
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
 * calibration older than a domU): subtract modulo 2^64, then compare. */
uint64_t pvclock_ns(const struct vcpu_time_info *t, uint64_t tsc)
{
    int64_t delta = (int64_t)(tsc - t->tsc_timestamp);

    if (delta <= 0)
        return t->system_time;
    return t->system_time +
           pvclock_scale_delta((uint64_t)delta, t->tsc_to_system_mul, t->tsc_shift);
}

/* pvclock ABI: the scale maps TSC ticks to ns, so a second's ticks are
 * 10^9 * 2^32 / mul, shifted back the other way. */
uint64_t pvclock_tsc_hz(const volatile struct vcpu_time_info *t)
{
    uint64_t hz;
    int8_t shift = t->tsc_shift;

    if (!t->tsc_to_system_mul || shift <= -32 || shift >= 32)
        return 0;
    hz = (1000000000ull << 32) / t->tsc_to_system_mul;
    return shift < 0 ? hz << -shift : hz >> shift;
}

/* pvclock ABI: without XEN_PVCLOCK_TSC_STABLE_BIT (KVM's
 * PVCLOCK_TSC_STABLE_BIT, the same bit) each vCPU's clock is its physical
 * CPU's, and two may disagree (under TCG on a busy host, by whole
 * seconds): never return less than some vCPU already has, as Linux's
 * pvclock does. */
uint64_t pvclock_never_back(struct pvclock_latest *l, uint64_t ns, uint8_t flags)
{
    uint64_t latest = __atomic_load_n(&l->latest, __ATOMIC_RELAXED);

    if (!__atomic_load_n(&l->several, __ATOMIC_RELAXED) || (flags & XEN_PVCLOCK_TSC_STABLE_BIT))
        return ns;
    do {
        if (ns <= latest)
            return latest;
    } while (!__atomic_compare_exchange_n(&l->latest, &latest, ns, true, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return ns;
}
