/* The scheduler's costs, lmbench style: two threads yielding to each
 * other (lat_ctx 2p/0k), a one-byte ping-pong over two channels
 * (lat_pipe), and bytes streamed through one channel (bw_pipe). Every
 * switch takes the scheduler lock with spin_lock_irqsave, so the irq ops
 * and the lock ops are all on these paths.
 *
 * The threads take the time themselves, with the loop counted in (it is
 * small beside a switch); the caller only waits for them. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/channel.h"
#include "kernel/sched.h"

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

/* ---- ctx_switch: one op is one switch. */

struct yield_pair {
    uint64_t yields;    /* by the timing thread */
    volatile bool done; /* the partner stops when it sees this */
    uint64_t ticks;
    uint64_t switches; /* counted by the scheduler during the timed loop */
};

static void yield_and_time(void *arg)
{
    struct yield_pair *p = arg;

    thread_yield(); /* the partner has started once this returns */
    uint64_t switches = sched_switches(), t0 = bench_cycles();
    for (uint64_t i = 0; i < p->yields; i++)
        thread_yield();
    p->ticks = bench_cycles() - t0;
    p->switches = sched_switches() - switches;
    p->done = true;
}

static void yield_until_done(void *arg)
{
    struct yield_pair *p = arg;

    while (!p->done)
        thread_yield();
}

/* Each yield of the timing thread is two switches: there and back. */
static uint64_t measure_ctx_switch(uint64_t n)
{
    struct yield_pair p = {.yields = (n + 1) / 2};

    if (!run_pair(yield_and_time, yield_until_done, &p))
        return 0;
    expect(p.switches >= 2 * p.yields, "thread_yield returned without switching");
    return p.ticks * n / (2 * p.yields);
}

BENCH_DEFINE(ctx_switch, sched,
             "one switch between two threads yielding to each other (lmbench lat_ctx 2p/0k)",
             .iters = SWITCH_ITERS, .prepare = prepare_sched, .measure = measure_ctx_switch,
             .check = check_sched);

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
             .iters = PINGPONG_ITERS, .prepare = prepare_sched, .measure = measure_pingpong,
             .check = check_sched);

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
             .iters = STREAM_KIB, .prepare = prepare_sched, .measure = measure_bandwidth,
             .check = check_sched);
