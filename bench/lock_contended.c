/* lock_contended: a thread on every CPU taking one lock, the case pv
 * spinlocks exist for. Thread i is bound to CPU i and takes the lock n
 * times around a short critical section, with a little work outside it.
 * The figure is machine time per acquisition, the inverse of the lock's
 * throughput: from the moment the last thread arrives to the moment the
 * last one finishes, over the acquisitions made. With one CPU there is
 * one thread and no contention: the figure to compare with.
 *
 * Under Xen with more vCPUs than physical CPUs, Xen now and then
 * deschedules a vCPU whose thread holds the lock, or whose ticket comes
 * up next: ticket waiters then spin until Xen runs it again, where the pv
 * lock (pv.spinlock=on) blocks them in SCHEDOP_poll until the unlocker
 * kicks the next one. Xen's time slices last a millisecond or more, so a
 * repetition must span several of them to meet that case at all; and
 * once it has, spinning can cost a time slice per acquisition, so a
 * repetition that has lasted REP_TICKS_MAX takes no more tickets. Each
 * repetition's line says how many acquisitions waited LONG_WAIT_TICKS or
 * more, so a run shows whether it met the case: with a running holder and
 * successor a wait is a few hundred ticks, while a descheduled vCPU stops
 * the lock for its whole time off, Xen's slice or more.
 *
 * A benchmark must not time its own probe. So an acquisition that finds
 * the lock taken is counted by a test of the lock word (contended), and
 * its wait is timed only where a clock read is cheap beside it: a read's
 * cost is measured once, untimed. Natively and in a PV dom0 rdtsc runs
 * untrapped, and every contended wait is timed. Where it traps into Xen
 * (PVH, a domU: thousands of instructions against the few hundred of an
 * acquisition), a pv lock's waits, many and short, are sampled: only
 * every SAMPLE_EVERY-th of a thread's is timed, and every one while timed
 * waits stay long; long_waits are of the timed waits (timed). Plain
 * spinning's are timed every one there too: its slice-long waits are too
 * few for sampling to meet them or its deadline (sampled, a repetition
 * overran it eightfold). The deadline is also read every DEADLINE_EVERY-th
 * acquisition, a bound for the sampled locks. */
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

#define CONTENDED_ITERS 8000 /* acquisitions per thread */
#define INSIDE_STEPS 16      /* work under the lock */
#define OUTSIDE_STEPS 64     /* work between two acquisitions */
#define GUARDED_WORDS 8
#define REP_TICKS_MAX (UINT64_C(1) << 24)
#define LONG_WAIT_TICKS 50000
#define SAMPLE_EVERY 64    /* of a thread's contended acquisitions, the one timed */
#define DEADLINE_EVERY 512 /* acquisitions between two reads of the deadline */
#define CHEAP_READ_TICKS 100
#define RECORDS 100 /* the warm-up and up to 99 repetitions */

static struct {
    struct spinlock lock;
    volatile uint64_t guarded[GUARDED_WORDS]; /* written only under the lock */
    unsigned threads, arrived, finished;
    uint64_t start, deadline, last_end; /* TSC: the last arrival, its limit, the last finish */
    uint64_t waited;     /* TSC from finding the lock taken to releasing it, timed waits only */
    uint64_t made;       /* acquisitions, over every thread */
    uint64_t long_waits; /* of the timed waits, the ones of LONG_WAIT_TICKS or more */
    uint64_t contended;  /* acquisitions that found the lock taken */
    uint64_t timed;      /* of those, the ones whose wait read the clock (twice) */
    uint64_t blocked, kicked; /* the pv lock's counters at the start, then the change */
} c;

/* One repetition's figures; record 0 is the warm-up. */
struct contended_record {
    uint64_t elapsed, made, waited, long_waits, blocked, kicked, contended, timed;
};

static struct contended_record records[RECORDS];
static unsigned calls;
static uint64_t expected_total;
static unsigned threads_used;
static unsigned sample_every; /* 1 where a clock read is cheap, else SAMPLE_EVERY */

/* Releases everyone once the last thread is here; waits by yielding, so
 * on one CPU the others get to arrive. The pv lock's counters are read
 * here and by the last to finish, so they count what the threads' own
 * waits cost, not the scheduler's around them. */
static void start_together(void)
{
    if (__atomic_add_fetch(&c.arrived, 1, __ATOMIC_ACQ_REL) == c.threads) {
        uint64_t now = bench_cycles();
        c.blocked = pv_lock_counter(pv_lock_ops.blocked);
        c.kicked = pv_lock_counter(pv_lock_ops.kicked);
        c.deadline = now + REP_TICKS_MAX;
        __atomic_store_n(&c.start, now, __ATOMIC_RELEASE);
    }
    while (!__atomic_load_n(&c.start, __ATOMIC_ACQUIRE))
        thread_yield();
}

/* A ticket is taken only before the deadline, read on a timed wait and
 * every DEADLINE_EVERY acquisitions: a thread already queued gets its
 * turn, one that runs alone finishes its n. */
static void take_lock_repeatedly(void *arg)
{
    uint64_t rounds = (uint64_t)arg, waited = 0, long_waits = 0, contended = 0, timed = 0;
    uint64_t made = 0, end, last;
    volatile uint64_t outside = 0;
    bool slow = false;

    start_together();
    for (; made < rounds; made++) {
        uint64_t t0 = 0;
        bool taken = spin_is_locked(&c.lock);
        bool timing = taken && (++contended % sample_every == 0 || slow);
        if (timing || made % DEADLINE_EVERY == DEADLINE_EVERY - 1) {
            t0 = bench_cycles();
            if (t0 >= c.deadline) {
                contended -= taken;
                break;
            }
        }
        spin_lock(&c.lock);
        for (unsigned s = 0; s < INSIDE_STEPS; s++)
            c.guarded[s % GUARDED_WORDS]++;
        spin_unlock(&c.lock);
        if (timing) {
            uint64_t wait = bench_cycles() - t0;
            waited += wait;
            slow = wait >= LONG_WAIT_TICKS;
            long_waits += slow;
            timed++;
        }
        for (unsigned s = 0; s < OUTSIDE_STEPS; s++)
            outside++;
    }
    end = bench_cycles();
    __atomic_add_fetch(&c.waited, waited, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c.made, made, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c.long_waits, long_waits, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c.contended, contended, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c.timed, timed, __ATOMIC_RELAXED);
    last = __atomic_load_n(&c.last_end, __ATOMIC_RELAXED);
    while (end > last && !__atomic_compare_exchange_n(&c.last_end, &last, end, false,
                                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    if (__atomic_add_fetch(&c.finished, 1, __ATOMIC_ACQ_REL) == c.threads) {
        c.blocked = pv_lock_counter(pv_lock_ops.blocked) - c.blocked;
        c.kicked = pv_lock_counter(pv_lock_ops.kicked) - c.kicked;
    }
}

static const char *prepare_contended(void)
{
    for (unsigned i = 0; i < GUARDED_WORDS; i++)
        c.guarded[i] = 0;
    c.lock = (struct spinlock){0};
    expected_total = 0;
    calls = 0;
    threads_used = smp_cpus_online();
    uint64_t t0 = bench_cycles();
    for (unsigned i = 0; i < 16; i++)
        (void)bench_cycles();
    bool cheap = (bench_cycles() - t0) / 17 < CHEAP_READ_TICKS;
    sample_every = cheap || !spin_lock_uses_pv_ops() ? 1 : SAMPLE_EVERY;
    return 0;
}

/* Bound, not left to the scheduler's one queue: unbound, the threads ran
 * one after another on the boot CPU, each its whole share alone, and met
 * neither each other nor a descheduled holder. Returns the ticks n
 * acquisitions take at the rate the repetition achieved, as the runner
 * divides by n and the deadline may have cut it short. */
static uint64_t measure_contended(uint64_t n)
{
    struct thread *t[MAX_CPUS];
    unsigned started = 0;

    c.threads = threads_used;
    c.arrived = c.finished = 0;
    c.start = c.last_end = c.waited = c.made = c.long_waits = c.contended = c.timed = 0;
    for (unsigned i = 0; i < threads_used; i++) {
        t[i] = thread_create_on(i, "lock-contender", take_lock_repeatedly, (void *)n);
        started += t[i] != NULL;
    }
    if (started < threads_used)
        panic("bench: lock_contended: no thread slot for %u contenders", threads_used);
    for (unsigned i = 0; i < threads_used; i++)
        thread_join(t[i]);
    expected_total += c.made * INSIDE_STEPS;
    if (calls < RECORDS)
        records[calls] = (struct contended_record){.elapsed = c.last_end - c.start,
                                                   .made = c.made,
                                                   .waited = c.waited,
                                                   .long_waits = c.long_waits,
                                                   .blocked = c.blocked,
                                                   .kicked = c.kicked,
                                                   .contended = c.contended,
                                                   .timed = c.timed};
    calls++;
    return c.made ? (c.last_end - c.start) * n / c.made : 0;
}

/* Every increment under the lock survived; then each repetition's
 * figures, as the repetitions differ by where Xen's time slices fell, and
 * their mean, the warm-up left out as the runner leaves it out (waiting:
 * per timed wait): detail lines, which tools/pbtools/bench/contended.py files
 * with the result. */
static const char *check_contended(void)
{
    uint64_t sum = 0, elapsed = 0, made = 0, waited = 0, long_waits = 0, blocked = 0, kicked = 0;
    uint64_t timed = 0;
    unsigned kept = calls < RECORDS ? calls : RECORDS;

    for (unsigned i = 0; i < GUARDED_WORDS; i++)
        sum += c.guarded[i];
    if (sum != expected_total)
        return "an increment under the lock was lost";
    for (unsigned r = 1; r < kept; r++) {
        const struct contended_record *x = &records[r];
        if (!x->made)
            return "a repetition made no acquisitions";
        kprintf("bench: detail=lock_contended rep=%u per_acq=%lu unit=%s acquisitions=%lu "
                "long_waits=%lu long_wait=%u blocked=%lu kicked=%lu contended=%lu timed=%lu\n",
                r, x->elapsed / x->made, tsc_unit(), x->made, x->long_waits, LONG_WAIT_TICKS,
                x->blocked, x->kicked, x->contended, x->timed);
        elapsed += x->elapsed, made += x->made, waited += x->waited;
        long_waits += x->long_waits, blocked += x->blocked, kicked += x->kicked;
        timed += x->timed;
    }
    if (!made)
        return "no acquisitions were made";
    kprintf("bench: detail=lock_contended threads=%u cpus=%u lock=\"%s\" mean=%lu unit=%s "
            "waiting=%lu long_waits=%lu long_wait=%u blocked=%lu kicked=%lu\n",
            threads_used, smp_cpus_online(), spin_lock_kind(), elapsed / made, tsc_unit(),
            timed ? waited / timed : 0, long_waits, LONG_WAIT_TICKS, blocked, kicked);
    return 0;
}

BENCH_DEFINE(lock_contended, locks,
             "one acquisition of a lock every CPU's thread is taking, as machine time per "
             "acquisition",
             .iters = CONTENDED_ITERS, .every_cpu = true, .prepare = prepare_contended,
             .measure = measure_contended, .check = check_contended);
