/* wl=on: the write barrier of a garbage collector, an mprotect-heavy
 * workload. A heap of wl.pages pages is write-protected at the start of
 * each cycle; wl.threads mutator threads write to it in a pattern drawn
 * from wl.seed; the first write to a page faults, and the handler marks
 * the page dirty and makes it writable (an mprotect of one page). At the
 * end of the cycle the collector checks every dirty page against a shadow
 * copy the mutators also wrote, then write-protects the whole heap with
 * one mprotect. Each mutator owns the pages whose number modulo the
 * mutator count is its own, so the heap's contents, the fault count and
 * the final checksum depend on the options only, never on scheduling. */
#include "kernel/write_barrier.h"

#include <stdbool.h>
#include <stdint.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/workload.h"
#include "mm/mm_stats.h"
#include "mm/vm.h"

#define WL_MAX_PAGES 65536
#define WL_MAX_MUTATORS 8
#define WORDS_PER_PAGE (PAGE_SIZE / sizeof(uint64_t))
#define BITMAP_WORDS (WL_MAX_PAGES / 64)

static const char *const wl_choices[] = {"off", "on", 0};
static int wl_choice;
OPTION_ENUM(wl_choice, "wl", wl_choices, "run the write-barrier workload after the self-tests");
static uint64_t wl_pages = 2048;
OPTION_SIZE(wl_pages, "wl.pages", 1, WL_MAX_PAGES, "heap pages of the workload");
static uint64_t wl_threads = 2;
OPTION_UINT(wl_threads, "wl.threads", 1, WL_MAX_MUTATORS, "mutator threads of the workload");
static uint64_t wl_cycles = 4;
OPTION_UINT(wl_cycles, "wl.cycles", 1, 1000000, "collection cycles of the workload");
static uint64_t wl_seed = 1;
OPTION_UINT(wl_seed, "wl.seed", 0, UINT64_MAX, "seed of the workload's write pattern");

struct heap {
    volatile uint64_t *words;       /* the protected heap */
    uint64_t *shadow;               /* the same writes, never protected */
    uint64_t dirty[BITMAP_WORDS];   /* pages that faulted this cycle (the handler) */
    uint64_t written[BITMAP_WORDS]; /* pages written this cycle (the mutators) */
};

struct mutator {
    uint64_t id, writes, random;
};

/* TSC ticks spent in each phase, over all cycles. */
struct phase_ticks {
    uint64_t mutate, check, reprotect;
};

static struct heap heap;
static uint64_t done_cycles, done_ns; /* write_barrier_progress() */

/* splitmix64: a tiny generator whose every output is well mixed. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t next_random(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    return mix64(*state);
}

/* TSC ticks, for the timing line only. Under QEMU's -icount shift=0 one
 * tick is one instruction; lfence keeps earlier work from running past it. */
static uint64_t tsc_ticks(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static bool bit_test_and_set(uint64_t *map, uint64_t n)
{
    uint64_t bit = 1ULL << (n % 64);

    return __atomic_fetch_or(&map[n / 64], bit, __ATOMIC_RELAXED) & bit;
}

static bool bit_test(const uint64_t *map, uint64_t n)
{
    return map[n / 64] & (1ULL << (n % 64));
}

static void *page_address(uint64_t page)
{
    return (void *)(heap.words + page * WORDS_PER_PAGE);
}

static write_barrier_point_fn point_hook;

void write_barrier_on_point(write_barrier_point_fn hook)
{
    point_hook = hook;
}

static inline void reach_point(enum write_barrier_point point)
{
    if (point_hook)
        point_hook(point);
}

/* The write barrier: a page's first write this cycle. A second fault on a
 * dirty page means the unprotect did not take, so it is not handled. */
static bool heap_write_fault(uint64_t addr, void *ctx)
{
    uint64_t page = (addr - (uint64_t)heap.words) / PAGE_SIZE;

    (void)ctx;
    reach_point(WL_IN_WRITE_HANDLER);
    if (bit_test_and_set(heap.dirty, page))
        return false;
    return mprotect(page_address(page), PAGE_SIZE, VM_READ | VM_WRITE) == 0;
}

/* Pages id, id + n, id + 2n, ... are mutator id's, of n mutators. */
static uint64_t pages_owned(uint64_t id)
{
    return id < wl_pages ? (wl_pages - id + wl_threads - 1) / wl_threads : 0;
}

/* A bit per CPU a mutator was seen on, at its start or end: on SMP the
 * summary says how many CPUs the mutators used. */
static unsigned mutator_cpus;

static void note_mutator_cpu(void)
{
    __atomic_fetch_or(&mutator_cpus, 1u << cpu_index(), __ATOMIC_RELAXED);
}

static void mutate(void *arg)
{
    struct mutator *m = arg;
    uint64_t owned = pages_owned(m->id);

    note_mutator_cpu();

    for (uint64_t i = 0; i < m->writes && owned; i++) {
        uint64_t r = next_random(&m->random);
        uint64_t page = (r % owned) * wl_threads + m->id;
        uint64_t word = page * WORDS_PER_PAGE + (r >> 32) % WORDS_PER_PAGE;
        uint64_t value = next_random(&m->random);

        reach_point(WL_IN_MUTATOR);
        heap.words[word] = value; /* faults if the page is still protected */
        heap.shadow[word] = value;
        bit_test_and_set(heap.written, page);
    }
    note_mutator_cpu();
}

/* Half as many writes as pages per cycle: about 39% of the pages are
 * written (1 - e^-0.5), each by its owner. */
static void run_mutators(uint64_t cycle)
{
    struct mutator m[WL_MAX_MUTATORS];
    struct thread *t[WL_MAX_MUTATORS];
    uint64_t writes = wl_pages / 2 ? wl_pages / 2 : 1;

    for (uint64_t id = 0; id < wl_threads; id++) {
        m[id] = (struct mutator){
            .id = id,
            .writes = writes / wl_threads + (id < writes % wl_threads),
            .random = wl_seed + (cycle * WL_MAX_MUTATORS + id) * 0xd1b54a32d192ed03ULL,
        };
        t[id] = thread_create("mutator", mutate, &m[id]);
        if (!t[id])
            panic("wl: no thread slot for mutator %lu", id);
    }
    for (uint64_t id = 0; id < wl_threads; id++)
        thread_join(t[id]);
}

/* Position-dependent, so moved or swapped words change it. */
static uint64_t page_checksum(const volatile uint64_t *w)
{
    uint64_t sum = 0;

    for (uint64_t i = 0; i < WORDS_PER_PAGE; i++)
        sum += mix64(w[i] ^ (i * 0x9e3779b97f4a7c15ULL));
    return sum;
}

/* The collector: every page faulted exactly when it was written, and
 * every dirty page matches its shadow. Returns the cycle's fault count
 * and folds each dirty page's checksum into *total. */
static uint64_t collect(uint64_t cycle, uint64_t *total)
{
    uint64_t faults = 0;

    for (uint64_t p = 0; p < wl_pages; p++) {
        bool dirty = bit_test(heap.dirty, p), written = bit_test(heap.written, p);
        if (dirty != written)
            panic("wl: cycle %lu: page %lu %s", cycle, p,
                  dirty ? "faulted but was never written" : "was written without a fault");
        if (!dirty)
            continue;
        uint64_t sum = page_checksum(heap.words + p * WORDS_PER_PAGE);
        uint64_t expected = page_checksum(heap.shadow + p * WORDS_PER_PAGE);
        if (sum != expected)
            panic("wl: cycle %lu: page %lu checksum 0x%lx, its shadow's 0x%lx", cycle, p, sum,
                  expected);
        *total = *total * 0x100000001b3ULL + (p ^ sum);
        faults++;
    }
    for (uint64_t i = 0; i < BITMAP_WORDS; i++)
        heap.dirty[i] = heap.written[i] = 0;
    return faults;
}

static void write_protect_heap(void)
{
    if (mprotect((void *)heap.words, wl_pages * PAGE_SIZE, VM_READ) != 0)
        panic("wl: mprotect of the heap failed");
}

static void map_heap(void)
{
    heap.words = vm_map(wl_pages * PAGE_SIZE, VM_READ | VM_WRITE, heap_write_fault, 0);
    heap.shadow = vm_map(wl_pages * PAGE_SIZE, VM_READ | VM_WRITE, 0, 0);
    if (!heap.words || !heap.shadow)
        panic("wl: cannot map two areas of %lu pages: out of memory", wl_pages);
    write_protect_heap();
}

static void print_summary(uint64_t cycles, uint64_t faults, uint64_t total,
                          const struct phase_ticks *t, const struct mm_stats *s)
{
    uint64_t ptes = cycles * wl_pages;
    uint64_t per_pte = (t->reprotect * 100 + ptes / 2) / ptes; /* hundredths */
    char line[256];

    kprintf("wl: %lu cycles x %lu pages, %lu mutators, seed %lu: %lu faults, checksums ok "
            "(0x%016lx)\n",
            cycles, wl_pages, wl_threads, wl_seed, faults, total);
    kprintf("wl: %s per cycle %lu: mutators %lu, collector %lu, re-protect %lu "
            "(%lu.%02lu per pte)\n",
            tsc_unit(), (t->mutate + t->check + t->reprotect) / cycles, t->mutate / cycles,
            t->check / cycles, t->reprotect / cycles, per_pte / 100, per_pte % 100);
    if (smp_cpus_online() > 1)
        kprintf("wl: mutators ran on CPUs 0x%x of %u\n", mutator_cpus, smp_cpus_online());
    mm_stats_format(line, sizeof(line), s);
    kprintf("%s\n", line);
}

bool write_barrier_wanted(void)
{
    return wl_choice != 0;
}

void write_barrier_run(void)
{
    struct phase_ticks t = {0};
    uint64_t faults = 0, total = 0, cycles;
    struct mm_stats s;

    if (!write_barrier_wanted())
        return;
    map_heap();
    mm_stats_reset(); /* the counters cover the cycles, not the set-up */
    /* Held open (kernel/workload.h), the workload runs on past its count. */
    for (cycles = 0; cycles < wl_cycles || workload_held(); cycles++) {
        uint64_t cycle = cycles, start_ns = time_now_ns();
        uint64_t t0 = tsc_ticks(), t1, t2;
        run_mutators(cycle);
        t1 = tsc_ticks();
        faults += collect(cycle, &total);
        t2 = tsc_ticks();
        write_protect_heap();
        t.mutate += t1 - t0;
        t.check += t2 - t1;
        t.reprotect += tsc_ticks() - t2;
        __atomic_store_n(&done_ns, done_ns + time_now_ns() - start_ns, __ATOMIC_RELAXED);
        __atomic_store_n(&done_cycles, cycles + 1, __ATOMIC_RELAXED);
    }
    mm_stats_read(&s);
    if (s.faults != faults)
        panic("wl: %lu pages faulted, but the mm layer handed on %lu faults", faults, s.faults);
    print_summary(cycles, faults, total, &t, &s);
    vm_unmap((void *)heap.words);
    vm_unmap(heap.shadow);
}

void write_barrier_progress(uint64_t *cycles, uint64_t *ns)
{
    *cycles = __atomic_load_n(&done_cycles, __ATOMIC_RELAXED);
    *ns = __atomic_load_n(&done_ns, __ATOMIC_RELAXED);
}

/* The benchmark's entry (bench/wl_bench.c): the same cycles, with every
 * check, on a heap mapped at the first call and kept for the next; each
 * call continues the cycle count, so every cycle draws a new pattern. */
uint64_t write_barrier_bench_cycles(uint64_t cycles, uint64_t *faults)
{
    static uint64_t next_cycle;
    uint64_t total = 0, t0;

    if (!heap.words)
        map_heap();
    t0 = tsc_ticks();
    for (uint64_t i = 0; i < cycles; i++, next_cycle++) {
        run_mutators(next_cycle);
        *faults += collect(next_cycle, &total);
        write_protect_heap();
    }
    return tsc_ticks() - t0;
}
