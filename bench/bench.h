/* Built-in microbenchmarks, chosen with bench=NAME[,NAME...] (or a group
 * name, or "all") and run after the boot self-tests.
 *
 * A benchmark is a struct bench in the "benches" section (BENCH_DEFINE),
 * so code outside bench/ can add its own: xen/bench.c adds the hypercall
 * and event benchmarks without bench/ knowing about Xen. The registration
 * is the only list there is: tools/bench reads the section out of the
 * image to know what to expect from a boot and what goes in the report.
 *
 * The runner (bench/runner.c) calls measure(n) once to warm up, then
 * bench.reps times, and prints one line per benchmark:
 *   bench: name=NAME config=CONFIG iters=N reps=R min=X.XX median=X.XX unit=U
 * The figures are TSC ticks per op, in the unit U (tsc_unit(): instructions
 * under icount), with the empty loop's cost per iteration taken off when
 * subtract_loop is set (bench/loop.h). A benchmark's check may print
 * figures of its own before that line, as key=value fields too:
 *   bench: detail=NAME KEY=VALUE ...
 * tools/pbtools/result_lines.py is the one reader of both. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/ops.h" /* PV_CAP_*, for .needs */

/* A group of benchmarks: a word for bench=, and a section of the report.
 * Defined with BENCH_GROUP in bench/groups.c, the one place that says
 * what the groups are called and in which order they run. */
struct bench_group {
    const char *name;  /* on the command line */
    const char *title; /* the report's heading */
    unsigned rank;     /* groups run and are reported by rank */
};

#define BENCH_GROUP(id_, rank_, title_)                                                            \
    extern const struct bench_group bench_group_##id_;                                             \
    const struct bench_group bench_group_##id_ = {.name = #id_, .title = title_, .rank = rank_}

struct bench {
    const char *name;                /* on the command line and the result line */
    const struct bench_group *group; /* a BENCH_GROUP: its word, heading and place */
    const char *description;         /* what one op is, in one line, for the report */
    uint64_t iters;                  /* ops per repetition, unless bench.iters says otherwise */
    unsigned needs;                  /* PV_CAP_* the backend must offer, or it is skipped */
    bool subtract_loop;              /* measure() times BENCH_LOOP: take off the empty loop */
    /* On several CPUs its threads run on all of them at once, so what one
     * op counts under --icount depends on how QEMU interleaves the CPUs. */
    bool every_cpu;
    /* Optional: gets the benchmark ready; NULL, or why it cannot run. */
    const char *(*prepare)(void);
    /* TSC ticks that n ops took. */
    uint64_t (*measure)(uint64_t n);
    /* Did every op do its job? NULL, or what went wrong. A broken op must
     * not be able to report a fast time. */
    const char *(*check)(void);
};

/* Defines and registers a benchmark:
 *   BENCH_DEFINE(id, group, "what one op is", .iters = ..., .measure = ...);
 * id is also its name; group is a BENCH_GROUP id (an unknown one does not
 * link); .needs = PV_CAP_... for one that needs more than every backend offers. */
#define BENCH_DEFINE(id_, group_, description_, ...)                                               \
    extern const struct bench_group bench_group_##group_;                                          \
    static const struct bench bench_##id_ __attribute__((section("benches"), aligned(8),           \
                                                         used)) = {                                \
        .name = #id_, .group = &bench_group_##group_, .description = description_, __VA_ARGS__}

extern const struct bench __start_benches[], __stop_benches[];

/* linker.ld steps through the section in 64-byte strides, and
 * tools/bench_report.py reads these fields at these offsets. */
_Static_assert(sizeof(struct bench) == 64, "linker.ld checks the table in 64-byte steps");
_Static_assert(offsetof(struct bench, name) == 0 && offsetof(struct bench, group) == 8 &&
                   offsetof(struct bench, description) == 16 &&
                   offsetof(struct bench, needs) == 32 && offsetof(struct bench, every_cpu) == 37,
               "the tools read struct bench at these offsets");
_Static_assert(offsetof(struct bench_group, name) == 0 &&
                   offsetof(struct bench_group, title) == 8 &&
                   offsetof(struct bench_group, rank) == 16,
               "the tools read struct bench_group at these offsets");

/* A capability a benchmark can need, with the platform that offers it:
 * the skipped line says where the benchmark runs, and the tools know
 * which configurations run it (bench/needs.c). */
struct bench_cap {
    unsigned bit;     /* PV_CAP_* */
    const char *name; /* for the tools: "xen_pv" */
    /* The backends that offer it: a pv_info.name, or a family, the name
     * every pv_info.name of the family starts with before a '-' ("xen":
     * "xen-pv" and "xen-pvh"). */
    const char *platform;
};

extern const struct bench_cap bench_caps[]; /* ends with a NULL name */

_Static_assert(sizeof(struct bench_cap) == 24 && offsetof(struct bench_cap, name) == 8 &&
                   offsetof(struct bench_cap, platform) == 16,
               "the tools read struct bench_cap at these offsets");

/* NULL if a benchmark that needs `needs` can run on a backend offering
 * `caps`; else the platform it runs on, for its skipped line. */
const char *bench_unmet(unsigned needs, unsigned caps);

/* An option that changes what the benchmarks measure where a capability
 * is offered, so its value goes into every result's config string there,
 * default or not (e.g. xen.mmu under Xen: "xen-patched+xen.mmu=batch").
 * Registered by the code that owns the option, like a benchmark. */
struct bench_config_option {
    unsigned needs;     /* PV_CAP_*: shown when the backend offers all of them */
    const char *key;    /* the option's key on the command line */
    const char *unless; /* NULL, or the value shown as no tag at all */
};

#define BENCH_CONFIG_OPTION(id_, needs_, key_)                                                     \
    static const struct bench_config_option bench_option_##id_                                     \
        __attribute__((section("bench_options"), aligned(8), used)) = {needs_, key_, 0}
/* The same, tagged only when the option is not `usual_`. */
#define BENCH_CONFIG_OPTION_UNLESS(id_, needs_, key_, usual_)                                      \
    static const struct bench_config_option bench_option_##id_                                     \
        __attribute__((section("bench_options"), aligned(8), used)) = {needs_, key_, usual_}

extern const struct bench_config_option __start_bench_options[], __stop_bench_options[];

/* Runs the benchmarks bench= names, if any; returns how many failed. */
int bench_run_selected(void);

#endif
