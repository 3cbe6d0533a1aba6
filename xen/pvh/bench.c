/* The PVH backend's per-op choices change what the benchmarks of those ops
 * measure: each result under PVH names a choice that is not the usual,
 * Xen's way. */
#include "bench/bench.h"

BENCH_CONFIG_OPTION_UNLESS(xen_timer, PV_CAP_XEN_PVH, "xen.timer", "pv");
BENCH_CONFIG_OPTION_UNLESS(xen_ipi, PV_CAP_XEN_PVH, "xen.ipi", "evtchn");
BENCH_CONFIG_OPTION_UNLESS(xen_shootdown, PV_CAP_XEN_PVH, "xen.shootdown", "hypercall");
