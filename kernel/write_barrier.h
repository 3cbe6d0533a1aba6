#ifndef KERNEL_WRITE_BARRIER_H
#define KERNEL_WRITE_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

/* wl=on: runs the write-barrier workload (kernel/write_barrier.c) and
 * prints its summary and the mm counters; panics if a check fails.
 * Returns at once without wl=on. Call from thread context. */
void write_barrier_run(void);

/* Whether the command line asks for the workload (wl=on). */
bool write_barrier_wanted(void);

/* Places inside the workload where another part of the kernel may act
 * (fault=wl-* commits its fault there); the workload names no one. */
enum write_barrier_point {
    WL_IN_MUTATOR,       /* a mutator thread, before each write */
    WL_IN_WRITE_HANDLER, /* the write-fault handler, on entry */
};
typedef void (*write_barrier_point_fn)(enum write_barrier_point point);

/* Sets the one hook the points call (none by default). Before wl runs. */
void write_barrier_on_point(write_barrier_point_fn hook);

/* How many cycles write_barrier_run has finished, and the clock's ns
 * they took, so far: a lifecycle step's cost to the workload. */
void write_barrier_progress(uint64_t *cycles, uint64_t *ns);

/* For the benchmarks: runs `cycles` collection cycles of the same
 * workload (wl.pages, wl.threads, wl.seed), with all its checks, on a heap
 * kept from one call to the next; adds the pages that faulted to *faults
 * and returns the TSC ticks the cycles took. Panics if a check fails. */
uint64_t write_barrier_bench_cycles(uint64_t cycles, uint64_t *faults);

#endif
