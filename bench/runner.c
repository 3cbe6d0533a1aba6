/* Runs the benchmarks bench= selects, one result line each.
 *
 * Every benchmark runs once to warm up (caches, TCG's translated blocks,
 * lazily built state), then bench.reps times. The empty BENCH_LOOP is
 * measured first and reported as its own line (name=loop_overhead); its
 * minimum per iteration is taken off every benchmark with subtract_loop. */
#include "bench/bench.h"

#include "bench/config.h"
#include "bench/empty_loop.h"
#include "bench/order.h"
#include "bench/select.h"
#include "bench/stats.h"
#include "drivers/block.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/printf.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "pv/ops.h"

#define BENCH_MAX 64
#define REPS_MAX 99
#define LOOP_OVERHEAD_ITERS 100000

/* Every registered benchmark, in the order they run; panics if there
 * are more than max. */
static size_t bench_ordered(const struct bench *out[], size_t max)
{
    size_t count = (size_t)(__stop_benches - __start_benches);

    if (count > max)
        panic("bench: %zu benchmarks registered, room for %zu", count, max);
    for (size_t i = 0; i < count; i++)
        out[i] = &__start_benches[i];
    bench_sort(out, count);
    return count;
}

/* The words bench= takes, for the command-line parser. */
static void each_bench_word(option_word_fn fn, void *ctx)
{
    const struct bench *table[BENCH_MAX];

    bench_words(table, bench_ordered(table, BENCH_MAX), fn, ctx);
}

static char bench_list[256];
OPTION_LIST(bench_list, "bench", each_bench_word,
            "benchmarks to run after the self-tests: NAME,..., a group, all");
static uint64_t iters_override;
OPTION_UINT(iters_override, "bench.iters", 0, 100000000, "ops per repetition; 0: each one's own");
static uint64_t reps = 15;
OPTION_UINT(reps, "bench.reps", 1, REPS_MAX, "timed repetitions of each benchmark");

static uint64_t offset_us;
OPTION_UINT(offset_us, "bench.offset_us", 0, 1000000,
            "run this long before the first benchmark, to start it at another phase");

static uint64_t iters_for(uint64_t own)
{
    return iters_override ? iters_override : own;
}

/* Tour 180: Measuring it.
 * Every benchmark warms up, repeats, and prints one line: its name, the
 * configuration it ran in, and the minimum and median TSC ticks per op with
 * the empty loop's cost taken off, and the unit. Under `--icount` a tick is
 * one guest instruction, hypervisor included, so the figures repeat exactly
 * and the line says `unit=instructions`; without it they are emulator time
 * (`unit=tsc_ticks`), never hardware cycles. `make bench` boots each
 * configuration (no paravirt, unpatched, patched, native and Xen, each
 * xen.mmu mode) and tools/bench_report.py lays the lines out as the 2006 and
 * 2008 tables; docs/benchmarks.md says how to read them. */
static void print_result(const char *name, const char *config, uint64_t n, struct bench_summary s)
{
    kprintf(BENCH_RESULT_FORMAT, BENCH_RESULT_ARGS(name, config, n, reps, s, tsc_unit()));
}

/* The empty loop's cost per iteration, in hundredths of a tick. */
static uint64_t measure_loop_overhead(const char *config)
{
    uint64_t samples[REPS_MAX], n = iters_for(LOOP_OVERHEAD_ITERS);
    struct bench_summary s = bench_repeat(bench_empty_loop, n, samples, reps, 0);

    print_result("loop_overhead", config, n, s);
    return s.min;
}

/* Returns false if the benchmark failed. */
static bool run_one(const struct bench *b, const char *config, uint64_t loop_overhead)
{
    uint64_t samples[REPS_MAX], n = iters_for(b->iters);
    const char *why, *where = bench_unmet(b->needs, pv_info.caps);
    struct bench_summary s;

    if (where) {
        kprintf("bench: name=%s config=%s skipped=\"runs on %s only\"\n", b->name, config, where);
        return true;
    }
    why = b->prepare ? b->prepare() : 0;
    if (!why) {
        s = bench_repeat(b->measure, n, samples, reps, b->subtract_loop ? loop_overhead : 0);
        why = b->check ? b->check() : 0;
    }
    if (why) {
        kprintf(BENCH_FAILED_FORMAT, b->name, config, why);
        return false;
    }
    print_result(b->name, config, n, s);
    return true;
}

/* A run that asks for benchmarks measures at least one: a list of only
 * another platform's would pass having measured nothing. The ones that
 * cannot run here still say so, on their skipped line, beside the rest.
 * Whether there is a disk is known only once the probes have run. */
static const char *some_benchmark_runs_here(void)
{
    static char why[sizeof(bench_list) + 64];
    const struct bench *table[BENCH_MAX];
    bool chosen[BENCH_MAX] = {false};
    size_t count;

    if (!bench_list[0])
        return NULL;
    count = bench_ordered(table, BENCH_MAX);
    bench_select(bench_list, table, count, chosen);
    for (size_t i = 0; i < count; i++)
        if (chosen[i] && !bench_unmet(table[i]->needs, pv_info.caps | PV_CAP_DISK))
            return NULL;
    ksnprintf(why, sizeof(why), "bench=%s selects no benchmark that runs on %s", bench_list,
              pv_info.name);
    return why;
}
OPTION_CHECK(some_benchmark_runs_here);

/* PV_CAP_DISK is the one capability no backend's install function
 * offers: it is there once a transport has found a disk. The probes run
 * only for a selection that needs one, so other boots skip the search;
 * a selection of only disk benchmarks without a disk would measure
 * nothing (the option check could not know), so it ends the run. */
static void find_disk(const struct bench *const table[], size_t count, const bool chosen[])
{
    for (size_t i = 0; i < count; i++)
        if (chosen[i] && (table[i]->needs & PV_CAP_DISK)) {
            if (block_first())
                pv_info.caps |= PV_CAP_DISK;
            break;
        }
    for (size_t i = 0; i < count; i++)
        if (chosen[i] && !bench_unmet(table[i]->needs, pv_info.caps))
            return;
    kernel_exit(EXIT_FAILURE, "bench: the benchmarks chosen need a disk: start with --disk FILE");
}

static bool any_subtracts_loop(const struct bench *const table[], size_t count, const bool chosen[])
{
    for (size_t i = 0; i < count; i++)
        if (chosen[i] && table[i]->subtract_loop)
            return true;
    return false;
}

int bench_run_selected(void)
{
    const struct bench *table[BENCH_MAX];
    size_t count, selected = 0;
    bool chosen[BENCH_MAX] = {false};
    char config[BENCH_CONFIG_LEN];
    uint64_t loop_overhead = 0;
    int failed = 0;

    if (!bench_list[0])
        return 0;
    count = bench_ordered(table, BENCH_MAX);
    bench_select(bench_list, table, count, chosen);
    find_disk(table, count, chosen);
    bench_config(config, sizeof(config));
    for (size_t i = 0; i < count; i++)
        selected += chosen[i];
    kprintf("bench: %zu selected, config %s, %lu repetitions each\n", selected, config, reps);
    for (uint64_t end = time_now_ns() + offset_us * NSEC_PER_USEC; time_now_ns() < end;)
        ;
    if (any_subtracts_loop(table, count, chosen))
        loop_overhead = measure_loop_overhead(config);
    for (size_t i = 0; i < count; i++)
        if (chosen[i] && !run_one(table[i], config, loop_overhead))
            failed++;
    return failed;
}
