/* The scheduler's costs, lmbench style: threads yielding to each other
 * (lat_ctx 2p/0k), a one-byte ping-pong over two channels (lat_pipe),
 * and bytes streamed through one channel (bw_pipe). Every switch takes
 * the scheduler lock with spin_lock_irqsave, so the irq ops and the lock
 * ops are all on these paths.
 *
 * The threads take the time themselves, with the loop counted in (it is
 * small beside a switch); the caller only waits for them.
 *
 * On several CPUs there is one run queue and no pinning (kernel/sched.c),
 * so each benchmark says what it measures there: ctx_switch keeps every
 * CPU switching, one yielding pair per CPU; the channel benchmarks let
 * the shared queue place their two threads, as perf bench sched pipe
 * does without taskset. On one CPU both are exactly the lmbench tests. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/channel.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"

#define SWITCH_ITERS 10000
#define PINGPONG_ITERS 5000
#define STREAM_KIB 256
#define CHUNK 1024       /* bytes per send: one op of channel_bandwidth */
#define STREAM_RING 4096 /* the self-test's channel size */
#define PINGPONG_RING 64

static const char *problem;

static void expect(bool ok, const char *what)
{
    if (!ok && !problem)
        problem = what;
}

static const char *prepare_sched(void)
{
    problem = 0;
    return 0;
}

static const char *check_sched(void)
{
    return problem;
}

/* Runs a and b as two threads and waits for both; false if no stack. */
static bool run_pair(void (*a)(void *), void (*b)(void *), void *arg)
{
    struct thread *ta = thread_create("bench-a", a, arg);
    struct thread *tb = thread_create("bench-b", b, arg);

    if (ta)
        thread_join(ta);
    if (tb)
        thread_join(tb);
    expect(ta && tb, "no free thread slot");
    return ta && tb;
}

/* ---- ctx_switch: one op is one switch. On one CPU, two threads yield to
 * each other, and each yield of the timing one is two switches, there and
 * back. On N CPUs two such threads would mostly run side by side and
 * yield to nobody, so there are N pairs: with more threads runnable than
 * CPUs, every yield finds another thread queued and switches, and all
 * CPUs switch at once through the one run queue and its lock. The figure
 * is then the CPU time per switch: every CPU's time over every switch,
 * which is the one-CPU figure plus what sharing the queue costs. */

struct yield_pairs {
    uint64_t yields;    /* by each timing thread */
    volatile bool done; /* the partners stop when they see this */
    unsigned threads;   /* two per CPU */
    unsigned started;   /* threads that have begun */
    unsigned timing;    /* timing threads not yet done */
    uint64_t ticks;     /* the timing threads' loops, added up */
    uint64_t switches;  /* counted by the scheduler during each timed loop, added up */
};

/* No loop starts before every thread has begun, so from the first timed
 * yield on, more threads are runnable than there are CPUs. */
static void yield_and_time(void *arg)
{
    struct yield_pairs *p = arg;

    __atomic_add_fetch(&p->started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&p->started, __ATOMIC_ACQUIRE) <
           __atomic_load_n(&p->threads, __ATOMIC_ACQUIRE))
        thread_yield();
    uint64_t switches = sched_switches(), t0 = bench_cycles();
    for (uint64_t i = 0; i < p->yields; i++)
        thread_yield();
    uint64_t ticks = bench_cycles() - t0;
    switches = sched_switches() - switches;
    __atomic_add_fetch(&p->ticks, ticks, __ATOMIC_RELAXED);
    __atomic_add_fetch(&p->switches, switches, __ATOMIC_RELAXED);
    if (__atomic_sub_fetch(&p->timing, 1, __ATOMIC_ACQ_REL) == 0)
        p->done = true;
}

/* Yields until the last timing thread is done: till then, each timing
 * thread still has every partner to switch to. */
static void yield_until_done(void *arg)
{
    struct yield_pairs *p = arg;

    __atomic_add_fetch(&p->started, 1, __ATOMIC_ACQ_REL);
    while (!p->done)
        thread_yield();
}

/* The CPU time that `ticks` of the TSC stand for while all `cpus` are
 * busy: under icount the TSC already counts every CPU's instructions. */
static uint64_t cpu_ticks(uint64_t ticks, unsigned cpus)
{
    return tsc_counts_every_cpu() ? ticks : ticks * cpus;
}

/* The n switches of a repetition are shared among the timing threads.
 * Every yield of one is a switch away from it and one back to it, each
 * counted in its window: fewer means a yield did not switch. Should a
 * thread slot be missing, the threads that did start are let go at once
 * rather than left waiting for the others. */
static uint64_t measure_ctx_switch(uint64_t n)
{
    unsigned cpus = smp_cpus_online();
    struct yield_pairs p = {
        .yields = (n + 2 * cpus - 1) / (2 * cpus), .threads = 2 * cpus, .timing = cpus};
    struct thread *t[2 * MAX_CPUS];
    bool all = true;

    for (unsigned i = 0; i < cpus; i++) {
        t[2 * i] = thread_create("bench-a", yield_and_time, &p);
        t[2 * i + 1] = thread_create("bench-b", yield_until_done, &p);
        all = all && t[2 * i] && t[2 * i + 1];
    }
    if (!all) {
        p.yields = 0;
        p.done = true;
        __atomic_store_n(&p.threads, 0, __ATOMIC_RELEASE);
    }
    for (unsigned i = 0; i < 2 * cpus; i++)
        if (t[i])
            thread_join(t[i]);
    expect(all, "no free thread slot");
    expect(p.switches >= 2 * p.yields * cpus, "thread_yield returned without switching");
    return all && p.switches ? cpu_ticks(p.ticks, cpus) * n / p.switches : 0;
}

BENCH_DEFINE(ctx_switch, sched,
             "one switch between two threads yielding to each other (lmbench lat_ctx 2p/0k); on N "
             "CPUs, N such pairs at once, as CPU time per switch",
             .iters = SWITCH_ITERS, .every_cpu = true, .prepare = prepare_sched,
             .measure = measure_ctx_switch, .check = check_sched);

/* ---- channel_pingpong: one op is a byte there and a byte back. */

struct pingpong {
    uint64_t rounds;
    struct channel ping, pong;
    uint8_t ping_buf[PINGPONG_RING], pong_buf[PINGPONG_RING];
    uint64_t ticks;
    uint64_t wrong; /* replies that were not the byte sent plus one */
};

static void ping(void *arg)
{
    struct pingpong *p = arg;
    uint64_t t0 = bench_cycles();

    for (uint64_t i = 0; i < p->rounds; i++) {
        uint8_t out = (uint8_t)i, back;
        channel_send(&p->ping, &out, 1);
        channel_recv(&p->pong, &back, 1);
        p->wrong += back != (uint8_t)(out + 1);
    }
    p->ticks = bench_cycles() - t0;
}

static void pong(void *arg)
{
    struct pingpong *p = arg;

    for (uint64_t i = 0; i < p->rounds; i++) {
        uint8_t b;
        channel_recv(&p->ping, &b, 1);
        b++;
        channel_send(&p->pong, &b, 1);
    }
}

static struct pingpong pingpong_state;

static uint64_t measure_pingpong(uint64_t n)
{
    struct pingpong *p = &pingpong_state;

    p->rounds = n;
    p->ticks = p->wrong = 0;
    channel_init(&p->ping, p->ping_buf, sizeof(p->ping_buf));
    channel_init(&p->pong, p->pong_buf, sizeof(p->pong_buf));
    if (!run_pair(ping, pong, p))
        return 0;
    expect(p->wrong == 0, "a reply was not the byte sent plus one");
    return p->ticks;
}

BENCH_DEFINE(channel_pingpong, sched, "one byte there and back over two channels (lat_pipe)",
             .iters = PINGPONG_ITERS, .every_cpu = true, .prepare = prepare_sched,
             .measure = measure_pingpong, .check = check_sched);

/* ---- channel_bandwidth: one op is 1 KiB through the channel. Each chunk
 * carries its sequence number at the front and a marker at the end, so
 * a lost, repeated or torn chunk is seen. */

struct stream {
    uint64_t chunks;
    struct channel ch;
    uint8_t ring[STREAM_RING];
    uint8_t out[CHUNK], in[CHUNK];
    uint64_t t0, ticks;
    uint64_t wrong;
};

static void stream_send(void *arg)
{
    struct stream *s = arg;

    s->t0 = bench_cycles();
    for (uint64_t i = 0; i < s->chunks; i++) {
        __builtin_memcpy(s->out, &i, sizeof(i));
        s->out[CHUNK - 1] = (uint8_t)~i;
        channel_send(&s->ch, s->out, CHUNK);
    }
}

static void stream_receive(void *arg)
{
    struct stream *s = arg;

    for (uint64_t i = 0; i < s->chunks; i++) {
        uint64_t seq;
        channel_recv(&s->ch, s->in, CHUNK);
        __builtin_memcpy(&seq, s->in, sizeof(seq));
        s->wrong += seq != i || s->in[CHUNK - 1] != (uint8_t)~i;
    }
    s->ticks = bench_cycles() - s->t0;
}

static struct stream stream_state;

static uint64_t measure_bandwidth(uint64_t n)
{
    struct stream *s = &stream_state;

    s->chunks = n;
    s->ticks = s->wrong = 0;
    channel_init(&s->ch, s->ring, sizeof(s->ring));
    if (!run_pair(stream_send, stream_receive, s))
        return 0;
    expect(s->wrong == 0, "a chunk arrived out of order or torn");
    return s->ticks;
}

BENCH_DEFINE(channel_bandwidth, sched,
             "1 KiB through a 4 KiB channel in 1 KiB sends (bw_pipe, as time per KiB)",
             .iters = STREAM_KIB, .every_cpu = true, .prepare = prepare_sched,
             .measure = measure_bandwidth, .check = check_sched);
