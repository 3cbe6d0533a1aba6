/* The kernel clock's offset over Xen's system time after a resume: pure
 * arithmetic, so a host test can check it over a domain's moves. */
#ifndef XEN_XEN_TIME_H
#define XEN_XEN_TIME_H

#include <stdint.h>

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
