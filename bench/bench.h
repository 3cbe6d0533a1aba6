/* Built-in microbenchmarks, chosen with bench=NAME[,NAME...] (or a group
 * name, or "all") and run after the boot self-tests.
 *
 * A benchmark is a struct bench in the "benches" section (BENCH_DEFINE),
 * so code outside bench/ can add its own: xen/xen_bench.c adds the
 * hypercall and event benchmarks without bench/ knowing about Xen.
 *
 * The runner (bench/runner.c) calls measure(n) once to warm up, then
 * bench.reps times, and prints one line per benchmark:
 *   bench: name=NAME config=CONFIG iters=N reps=R cycles_min=X.XX cycles_median=X.XX
 * The figures are TSC ticks per op, with the empty loop's cost per
 * iteration taken off when subtract_loop is set (bench/loop.h). */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench {
    const char *name;     /* on the command line and the result line */
    const char *group;    /* "irq", "calls", "sched", "locks", "pte", "xen" */
    const char *platform; /* runs only on this platform_ops->name; NULL: everywhere */
    uint64_t iters;       /* ops per repetition, unless bench.iters says otherwise */
    bool subtract_loop;   /* measure() times BENCH_LOOP: take off the empty loop */
    /* Optional: gets the benchmark ready; NULL, or why it cannot run. */
    const char *(*prepare)(void);
    /* TSC ticks that n ops took. */
    uint64_t (*measure)(uint64_t n);
    /* Did every op do its job? NULL, or what went wrong. A broken op must
     * not be able to report a fast time. */
    const char *(*check)(void);
};

/* Defines and registers a benchmark: BENCH_DEFINE(id, .name = "...", ...). */
#define BENCH_DEFINE(id_, ...)                                                                     \
    static const struct bench bench_##id_                                                          \
        __attribute__((section("benches"), aligned(8), used)) = {__VA_ARGS__}

extern const struct bench __start_benches[], __stop_benches[];

_Static_assert(sizeof(struct bench) == 64, "linker.ld checks the table in 64-byte steps");

/* An option that changes what the benchmarks measure on one platform, so
 * its value goes into every result's config string there, default or not
 * (e.g. xen.mmu under Xen: "xen-patched+xen.mmu=batch"). Registered by the
 * code that owns the option, like a benchmark. */
struct bench_config_option {
    const char *platform; /* platform_ops->name */
    const char *key;      /* the option's key on the command line */
};

#define BENCH_CONFIG_OPTION(id_, platform_, key_)                                                  \
    static const struct bench_config_option bench_option_##id_                                     \
        __attribute__((section("bench_options"), aligned(8), used)) = {platform_, key_}

extern const struct bench_config_option __start_bench_options[], __stop_bench_options[];

/* Runs the benchmarks bench= names, if any; returns how many failed. */
int bench_run_selected(void);

#endif
