/* bench-host: every form (forms.c) timed in TSC ticks per op on the host's
 * own CPU, in ring 3, pinned to one CPU, as the kernel's runner times its
 * benchmarks (bench/stats.c): a warm-up, then repetitions, the minimum and
 * median per op with the empty loop's cost taken off; and the whole set
 * run several times, for the spread from run to run.
 *
 *   bench-host [--runs K] [--reps R] [--iters N] [--cpu C]
 *   bench-host --check [--corrupt FORM]
 *   bench-host --list
 *
 * Before timing anything it checks every site's bytes against the
 * emitter's and every site's result against its backend's function;
 * either failing ends the run with one line and status 1. --check does
 * only that, then runs each form's timing path a few ops long: what make
 * test runs, never a timing. --corrupt alters one byte of FORM's first
 * site, to show the byte check failing. Output: `host:` result lines
 * (tools/pbtools/bench/host.py reads them), then a table. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/empty_loop.h"
#include "bench/loop.h"
#include "bench/stats.h"
#include "linux-user/bench-host/bench_host.h"

#define SITE_ITERS 100000 /* ops per repetition, as the kernel's irq benchmarks */
#define CHECK_ITERS 100
#define REPS_MAX 99
#define RUNS_MAX 20
#define WARM_UP_TICKS 500000000ull /* spun before the first run: the core at speed */

struct options {
    bool check, list;
    unsigned runs, reps;
    uint64_t iters; /* 0: each form's own */
    int cpu;        /* -1: where it starts */
    const char *corrupt;
};

/* One form's figures in one run, hundredths of a tick per op. */
struct figures {
    uint64_t min, median, max;
};

static const char *running = "setup"; /* for the fault handler */
static const struct form *timed;
static uint64_t timed_arg;

static void usage(void)
{
    fprintf(stderr, "usage: bench-host [--runs K] [--reps R] [--iters N] [--cpu C]\n"
                    "       bench-host --check [--corrupt FORM]\n"
                    "       bench-host --list\n");
    exit(2);
}

static unsigned long number(const char *option, const char *s, unsigned long lo, unsigned long hi)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);

    if (end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "bench-host: %s takes a number from %lu to %lu, not '%s'\n", option, lo, hi,
                s);
        exit(2);
    }
    return v;
}

/* An option taking a value: false if there is no such option. */
static bool parse_value(struct options *o, const char *opt, const char *val)
{
    if (strcmp(opt, "--runs") == 0)
        o->runs = (unsigned)number(opt, val, 1, RUNS_MAX);
    else if (strcmp(opt, "--reps") == 0)
        o->reps = (unsigned)number(opt, val, 1, REPS_MAX);
    else if (strcmp(opt, "--iters") == 0)
        o->iters = number(opt, val, 1, 100000000);
    else if (strcmp(opt, "--cpu") == 0)
        o->cpu = (int)number(opt, val, 0, CPU_SETSIZE - 1);
    else if (strcmp(opt, "--corrupt") == 0)
        o->corrupt = val;
    else
        return false;
    return true;
}

static struct options parse_args(int argc, char **argv)
{
    struct options o = {.runs = 5, .reps = 15, .cpu = -1};

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0)
            o.check = true;
        else if (strcmp(argv[i], "--list") == 0)
            o.list = true;
        else if (i + 1 >= argc || !parse_value(&o, argv[i], argv[i + 1]))
            usage();
        else
            i++;
    }
    if (o.check) {
        o.runs = 1;
        o.reps = 2;
        o.iters = CHECK_ITERS;
    }
    return o;
}

static void on_fault(int sig)
{
    char line[160];
    int n = snprintf(line, sizeof(line), "bench-host: %s: signal %d: it ran what ring 3 may not\n",
                     running, sig);
    ssize_t written = write(2, line, (size_t)n);

    (void)written; /* nothing more to do if even that fails */
    _exit(1);
}

/* One CPU for the whole run: a migration between two reads of the TSC
 * would time two CPUs' clocks. */
static unsigned pin(int cpu)
{
    cpu_set_t set;

    if (cpu < 0)
        cpu = sched_getcpu();
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (cpu < 0 || sched_setaffinity(0, sizeof(set), &set) != 0)
        die("cannot pin the program to CPU %d", cpu);
    return (unsigned)cpu;
}

static const struct bench *registered(const char *name)
{
    for (const struct bench *b = __start_benches; b < __stop_benches; b++)
        if (strcmp(b->name, name) == 0)
            return b;
    die("no benchmark %s is linked in", name);
}

static const char *what(const struct form *f)
{
    return f->what ? f->what : registered(f->bench)->description;
}

static uint64_t time_frame(uint64_t n)
{
    uint64_t t0 = bench_cycles();

    code_run_loop(timed, n, timed_arg);
    return bench_cycles() - t0;
}

static struct figures repeat(uint64_t (*measure)(uint64_t), uint64_t n, unsigned reps,
                             uint64_t overhead)
{
    uint64_t samples[REPS_MAX];
    struct bench_summary s = bench_repeat(measure, n, samples, reps, overhead);

    return (struct figures){s.min, s.median, samples[reps - 1]};
}

/* The empty loop's figures: the emitted one the site forms run in
 * (code_run_loop with no form), or the kernel's (bench/empty_loop.c) that
 * its benchmarks run in. */
static struct figures time_empty(bool emitted, uint64_t n, unsigned reps)
{
    timed = NULL;
    timed_arg = 0;
    return repeat(emitted ? time_frame : bench_empty_loop, n, reps, 0);
}

static uint64_t iters_of(const struct form *f, const struct options *o)
{
    if (o->iters)
        return o->iters;
    return f && !f->n_sites ? registered(f->bench)->iters : SITE_ITERS;
}

/* As the kernel's runner runs a benchmark: prepare, repeat, check. */
static struct figures time_form(const struct form *f, const struct options *o,
                                const struct figures empties[2])
{
    const struct bench *b;
    struct figures fig = {0};
    const char *why;

    running = f->name;
    if (f->n_sites) {
        timed = f;
        timed_arg = form_arg(f);
        vcpu_set(0, 0);
        return repeat(time_frame, iters_of(f, o), o->reps, empties[0].min);
    }
    b = registered(f->bench);
    if (f->setup)
        f->setup();
    why = b->prepare ? b->prepare() : NULL;
    if (why == NULL) {
        fig = repeat(b->measure, iters_of(f, o), o->reps, empties[1].min);
        why = b->check ? b->check() : NULL;
    }
    if (why)
        die("%s: %s", f->name, why);
    return fig;
}

static void print_figures(const char *name, unsigned run, uint64_t n, unsigned reps,
                          struct figures g)
{
    printf("host: result=%s run=%u iters=%lu reps=%u min=%lu.%02lu median=%lu.%02lu "
           "max=%lu.%02lu unit=tsc_ticks\n",
           name, run, (unsigned long)n, reps, (unsigned long)(g.min / 100),
           (unsigned long)(g.min % 100), (unsigned long)(g.median / 100),
           (unsigned long)(g.median % 100), (unsigned long)(g.max / 100),
           (unsigned long)(g.max % 100));
}

/* Every form once, after the empty loops; into figs[form]. */
static void run_once(unsigned run, const struct options *o, struct figures figs[])
{
    uint64_t n = iters_of(NULL, o);
    struct figures empties[2];

    running = "the empty loops";
    empties[0] = time_empty(true, n, o->reps);
    empties[1] = time_empty(false, n, o->reps);
    print_figures("empty/frame", run, n, o->reps, empties[0]);
    print_figures("empty/loop", run, n, o->reps, empties[1]);
    for (size_t f = 0; f < n_forms; f++) {
        figs[f] = time_form(&forms[f], o, empties);
        print_figures(forms[f].name, run, iters_of(&forms[f], o), o->reps, figs[f]);
    }
}

/* Across runs: the lowest minimum, the median of the medians, the
 * median of each run's median less its minimum (the spread within a
 * run), and the lowest and highest run's minimum (across runs). */
struct summary {
    uint64_t min, median, within, lo, hi;
};

static struct summary summarise(const struct figures *per_run, unsigned runs)
{
    uint64_t medians[RUNS_MAX], within[RUNS_MAX], mins[RUNS_MAX];

    for (unsigned r = 0; r < runs; r++) {
        medians[r] = per_run[r].median;
        within[r] = per_run[r].median - per_run[r].min;
        mins[r] = per_run[r].min;
    }
    bench_summarise(mins, runs); /* sorts them */
    return (struct summary){mins[0], bench_summarise(medians, runs).median,
                            bench_summarise(within, runs).median, mins[0], mins[runs - 1]};
}

#define HUNDREDTHS(v) (unsigned long)((v) / 100), (unsigned long)((v) % 100)

static void print_summary(const struct form *f, struct summary s)
{
    printf("host: summary=%s min=%lu.%02lu median=%lu.%02lu within_runs=%lu.%02lu "
           "runs_lo=%lu.%02lu runs_hi=%lu.%02lu unit=tsc_ticks\n",
           f->name, HUNDREDTHS(s.min), HUNDREDTHS(s.median), HUNDREDTHS(s.within), HUNDREDTHS(s.lo),
           HUNDREDTHS(s.hi));
}

static void print_table(const struct summary s[])
{
    char runs[48];

    clock_print_heading();
    printf("%-26s %7s %7s %7s %15s  %s\n", "form (TSC ticks per op)", "min", "median", "in run",
           "runs' minimums", "what one op is");
    for (size_t f = 0; f < n_forms; f++) {
        snprintf(runs, sizeof(runs), "%lu.%02lu-%lu.%02lu", HUNDREDTHS(s[f].lo),
                 HUNDREDTHS(s[f].hi));
        printf("%-26s %4lu.%02lu %4lu.%02lu %4lu.%02lu %15s  %s\n", forms[f].name,
               HUNDREDTHS(s[f].min), HUNDREDTHS(s[f].median), HUNDREDTHS(s[f].within), runs,
               what(&forms[f]));
    }
}

static void print_forms(void)
{
    for (size_t f = 0; f < n_forms; f++) {
        printf("host: form=%s sites=%u what=\"%s\"", forms[f].name, forms[f].n_sites,
               what(&forms[f]));
        if (forms[f].kernel_bench)
            printf(" kernel_bench=%s kernel_config=%s", forms[f].kernel_bench,
                   forms[f].kernel_config);
        printf("\n");
    }
    code_print_sites();
}

static void warm_up(void)
{
    for (uint64_t t0 = bench_cycles(); bench_cycles() - t0 < WARM_UP_TICKS;)
        ;
}

static struct figures figs[RUNS_MAX][MAX_FORMS];

int main(int argc, char **argv)
{
    struct options o = parse_args(argc, argv);
    struct summary sums[MAX_FORMS];
    struct figures per_run[RUNS_MAX];

    if (n_forms > MAX_FORMS)
        die("%zu forms, room for %d", n_forms, MAX_FORMS);
    signal(SIGSEGV, on_fault);
    signal(SIGILL, on_fault);
    signal(SIGBUS, on_fault);
    setvbuf(stdout, NULL, _IOLBF, 0);
    vcpu_init();
    code_build(o.corrupt);
    code_seal();
    if (!code_check_bytes() || !check_results())
        return 1;
    clock_describe(pin(o.cpu), o.runs, o.reps, iters_of(NULL, &o));
    print_forms();
    if (o.list)
        return 0;
    if (!o.check)
        warm_up();
    for (unsigned r = 0; r < o.runs; r++)
        run_once(r + 1, &o, figs[r]);
    for (size_t f = 0; f < n_forms; f++) {
        for (unsigned r = 0; r < o.runs; r++)
            per_run[r] = figs[r][f];
        sums[f] = summarise(per_run, o.runs);
        print_summary(&forms[f], sums[f]);
    }
    if (o.check)
        printf("bench-host: check passed: %zu forms, every site's bytes the emitter's and its "
               "result its backend's; each timed %d ops, not measured\n",
               n_forms, CHECK_ITERS);
    else
        print_table(sums);
    return 0;
}
