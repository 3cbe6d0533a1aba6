#include "xen/system_time.h"

/* In unsigned arithmetic: the offset wraps to below zero where the new
 * host's system time is ahead of the clock. */
int64_t xen_resume_offset(const struct xen_clock_stop *stop, uint64_t system_ns, uint64_t wall_ns)
{
    uint64_t pause = wall_ns > stop->wall_ns ? wall_ns - stop->wall_ns : 0;

    return (int64_t)(stop->clock_ns + pause - system_ns);
}
