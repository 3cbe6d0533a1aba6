/* What a benchmark's .needs means where it cannot run, and to the tools:
 * tools/bench reads this table from the image to know which
 * configurations run which benchmarks. */
#include "bench/bench.h"

const struct bench_cap bench_caps[] = {
    {PV_CAP_XEN, "xen", "xen"},
    {PV_CAP_XEN_PV, "xen_pv", "xen-pv"},
    {PV_CAP_XEN_PVH, "xen_pvh", "xen-pvh"},
    {PV_CAP_DISK, "disk", "a guest with a disk (tools/run --disk)"},
    {0, 0, 0},
};

const char *bench_unmet(unsigned needs, unsigned caps)
{
    unsigned missing = needs & ~caps;

    if (!missing)
        return 0;
    for (const struct bench_cap *c = bench_caps; c->name; c++)
        if (missing & c->bit)
            return c->platform;
    return "another platform";
}
