/* Xen's system time from a vcpu_time_info snapshot, and the kernel
 * clock's offset over it after a resume: pure arithmetic, so a host test
 * can check it (against a 128-bit reference; over a domain's moves). */
#ifndef XEN_XEN_TIME_H
#define XEN_XEN_TIME_H

#include <stdint.h>

#include "xen/xen_public.h"

/* Xen ABI: ns = ((delta << shift) * mul) >> 32, where a negative shift
 * means a right shift and the product is kept to 96 bits. */
uint64_t xen_tsc_delta_to_ns(uint64_t delta, uint32_t tsc_to_system_mul, int8_t tsc_shift);

/* Nanoseconds since boot at TSC value tsc; a TSC read before the snapshot
 * was taken counts as no time passed, so the clock never steps back. The
 * TSC and tsc_timestamp are compared as a wrapping difference: a timestamp
 * "below zero" (a huge unsigned value) is before any small TSC. */
uint64_t xen_system_time_ns(const struct vcpu_time_info *t, uint64_t tsc);

/* Where the kernel's clock stopped as the domain suspended: its reading,
 * and the wall clock's (Xen's wc plus system time) in ns since the epoch. */
struct xen_clock_stop {
    uint64_t clock_ns;
    uint64_t wall_ns;
};

/* The offset to add to Xen's system time, system_ns on the new host with
 * the wall clock at wall_ns, for the kernel's clock to read stop's reading
 * plus the pause the wall clock saw (none if it went back): never less
 * than where it stopped, and computed afresh each resume, so no earlier
 * host's offset outlives the host. */
int64_t xen_resume_offset(const struct xen_clock_stop *stop, uint64_t system_ns, uint64_t wall_ns);

#endif
