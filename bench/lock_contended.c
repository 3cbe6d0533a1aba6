/* lock_contended: threads on every CPU taking one lock, the case pv
 * spinlocks exist for. One thread per CPU online, each
 * taking the lock its share of n times around a short critical section,
 * with a little work outside it. The figure is machine time per
 * acquisition, the inverse of the lock's throughput: from the moment the
 * last thread arrives to the moment the last one finishes, over all
 * acquisitions. With one CPU there is one thread and no contention: the
 * figure to compare with. Under Xen with more vCPUs than physical CPUs a holder's
 * vCPU may be descheduled: ticket waiters behind it then spin away whole
 * time slices, while the pv lock (pv.spinlock=on) blocks them in
 * SCHEDOP_poll until the unlocker kicks the next one. A repetition is
 * short beside Xen's time slice, so most miss a descheduled holder and
 * the min and median say little about overcommit: the check prints the
 * mean over every repetition, the waiting in it, and how often a waiter
 * blocked. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "pv/lock_ops.h"

#define CONTENDED_ITERS 2000
#define INSIDE_STEPS 16  /* work under the lock */
#define OUTSIDE_STEPS 64 /* work between two acquisitions */
#define GUARDED_WORDS 8

static struct {
    struct spinlock lock;
    volatile uint64_t guarded[GUARDED_WORDS]; /* written only under the lock */
    unsigned threads, arrived;
    uint64_t start, last_end; /* TSC: the last arrival, the last finish */
    uint64_t waited;          /* TSC spent in spin_lock, over every thread */
} c;

static uint64_t expected_total, waited_total, elapsed_total, acquisitions_total;
static uint64_t blocked_before, kicked_before;
static unsigned threads_used;

/* Releases everyone once the last thread is here; waits by yielding, so
 * on one CPU the others get to arrive. */
static void start_together(void)
{
    if (__atomic_add_fetch(&c.arrived, 1, __ATOMIC_ACQ_REL) == c.threads)
        __atomic_store_n(&c.start, bench_cycles(), __ATOMIC_RELEASE);
    while (!__atomic_load_n(&c.start, __ATOMIC_ACQUIRE))
        thread_yield();
}

static void take_lock_repeatedly(void *arg)
{
    uint64_t rounds = (uint64_t)arg, waited = 0, end, last;
    volatile uint64_t outside = 0;

    start_together();
    for (uint64_t i = 0; i < rounds; i++) {
        uint64_t t0 = bench_cycles();
        spin_lock(&c.lock);
        waited += bench_cycles() - t0;
        for (unsigned s = 0; s < INSIDE_STEPS; s++)
            c.guarded[s % GUARDED_WORDS]++;
        spin_unlock(&c.lock);
        for (unsigned s = 0; s < OUTSIDE_STEPS; s++)
            outside++;
    }
    end = bench_cycles();
    __atomic_add_fetch(&c.waited, waited, __ATOMIC_RELAXED);
    last = __atomic_load_n(&c.last_end, __ATOMIC_RELAXED);
    while (end > last && !__atomic_compare_exchange_n(&c.last_end, &last, end, false,
                                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static const char *prepare_contended(void)
{
    for (unsigned i = 0; i < GUARDED_WORDS; i++)
        c.guarded[i] = 0;
    c.lock = (struct spinlock){0};
    expected_total = waited_total = elapsed_total = acquisitions_total = 0;
    blocked_before = pv_lock_counter(pv_lock_ops.blocked);
    kicked_before = pv_lock_counter(pv_lock_ops.kicked);
    threads_used = smp_cpus_online();
    return 0;
}

static uint64_t measure_contended(uint64_t n)
{
    struct thread *t[MAX_CPUS];
    unsigned started = 0;

    c.threads = threads_used;
    c.arrived = 0;
    c.start = c.last_end = c.waited = 0;
    for (unsigned i = 0; i < threads_used; i++) {
        uint64_t share = n / threads_used + (i < n % threads_used);
        t[i] = thread_create("lock-contender", take_lock_repeatedly, (void *)share);
        started += t[i] != NULL;
    }
    if (started < threads_used)
        panic("bench: lock_contended: no thread slot for %u contenders", threads_used);
    for (unsigned i = 0; i < threads_used; i++)
        thread_join(t[i]);
    expected_total += n * INSIDE_STEPS;
    waited_total += c.waited;
    acquisitions_total += n;
    elapsed_total += c.last_end - c.start;
    return c.last_end - c.start;
}

/* Every increment under the lock survived, and what waiting cost. */
static const char *check_contended(void)
{
    uint64_t sum = 0, blocked = pv_lock_counter(pv_lock_ops.blocked) - blocked_before;
    uint64_t kicked = pv_lock_counter(pv_lock_ops.kicked) - kicked_before;

    for (unsigned i = 0; i < GUARDED_WORDS; i++)
        sum += c.guarded[i];
    if (sum != expected_total)
        return "an increment under the lock was lost";
    if (!acquisitions_total)
        return "no acquisitions were made";
    kprintf("bench: lock_contended: %u threads on %u CPUs, %s lock: mean %lu %s per acquisition "
            "(waiting %lu), waiters blocked %lu times, kicked %lu times\n",
            threads_used, smp_cpus_online(), spin_lock_kind(), elapsed_total / acquisitions_total,
            tsc_unit(), waited_total / acquisitions_total, blocked, kicked);
    return 0;
}

BENCH_DEFINE(lock_contended, locks,
             "one acquisition of a lock every CPU's thread is taking, as machine time per "
             "acquisition",
             .iters = CONTENDED_ITERS, .every_cpu = true, .prepare = prepare_contended,
             .measure = measure_contended, .check = check_contended);
