/* The benchmark groups: the words bench= takes besides the names, the
 * report's section headings, and the order both go in (by rank). A new
 * benchmark names one of these in its BENCH_DEFINE; a new group is one
 * line here. */
#include "bench/bench.h"

BENCH_GROUP(irq, 10, "Interrupt-flag ops");
BENCH_GROUP(calls, 20, "Calls: the 2018 jump-functions comparison");
BENCH_GROUP(patching, 25, "Live patching");
BENCH_GROUP(locks, 30, "Spinlocks");
BENCH_GROUP(sched, 40, "Scheduler and channels");
BENCH_GROUP(pte, 50, "Page tables");
BENCH_GROUP(xen, 60, "Xen primitives");
BENCH_GROUP(time, 70, "Clocks");
BENCH_GROUP(io, 80, "Paravirtual I/O");
