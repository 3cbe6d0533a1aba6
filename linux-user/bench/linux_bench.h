/* The benchmark program patchbay runs on Debian's Linux, as /init of an
 * initramfs (tools/run --linux): the same measurements as the kernel's
 * own benchmarks, where they mean the same thing, timed and reported the
 * same way (bench/loop.h, bench/stats.c), so the report can set both
 * kernels side by side. docs/benchmarks.md, "Linux, same ground". */
#ifndef LINUX_USER_BENCH_LINUX_BENCH_H
#define LINUX_USER_BENCH_LINUX_BENCH_H

#include <stdbool.h>
#include <stdint.h>

struct linux_bench {
    const char *name;                /* patchbay's name for the same measurement */
    uint64_t iters;                  /* ops per repetition in a full run */
    bool subtract_loop;              /* take the empty loop's cost off, as patchbay does */
    const char *(*prepare)(void);    /* NULL, or why it cannot run */
    uint64_t (*measure)(uint64_t n); /* ticks for n ops */
    const char *(*check)(void);      /* NULL, or what the ops got wrong */
};

extern const struct linux_bench mm_benches[], sched_benches[];
extern const unsigned mm_bench_count, sched_bench_count;

/* Under Xen, counts the hypercalls one mprotect of each size makes, from
 * Linux's xen:* trace events, and prints a line per size (or why not). */
void xen_trace_mprotect(bool under_xen);

/* mprotect of pages pages at a fresh 2 MiB-aligned area of their own,
 * for the trace: the area is made once per size. */
int mm_mprotect_once(unsigned pages);

/* Loads a module file; one already loaded counts as loaded (1), else 0
 * with errno set. */
int module_load(const char *path);

/* Loads the modules an order file names, in order: 0 when all loaded, -1
 * when it cannot be read, 1 when a module failed (errno set). */
int modules_load_order(const char *order);

/* With a disk driver in the initramfs (the virtio modules natively,
 * xen-blkfront.ko in a domU, tools/run --linux [--domu] --disk): loads it
 * and reads the disk's first 4 KiB, saying so in a line; returns 1 when it
 * could not (and says why), 0 otherwise or without a driver. */
int disk_probe(void);

/* Whether disk_probe found a disk: the disk benchmarks then run. */
int disk_found(void);

extern const struct linux_bench disk_benches[];
extern const unsigned disk_bench_count;

/* Takes net.ip= or net.timeout= (net_run refuses a bad value); 0 for
 * any other word. */
int net_arg(const char *arg);

/* bench.net: brings the card up and serves the client until its end,
 * printing the client's counts and the net-stats: line; NULL when the
 * client got every echo right and some back, else why not. */
const char *net_run(void);

#endif
