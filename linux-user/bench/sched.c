/* The scheduler and system-call benchmarks on Linux, each the nearest
 * thing to a patchbay one (bench/sched_bench.c, xen/bench.c):
 *   ctx_switch        two threads on one CPU yielding to each other
 *                     (sched_yield), per switch;
 *   channel_pingpong  one byte there and back over two pipes between two
 *                     threads (lat_pipe), per round trip;
 *   null_syscall      getppid(), a round trip into the kernel: the
 *                     nearest thing to patchbay's in-kernel calls, and
 *                     under Xen PV one that goes through Xen both ways. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-user/bench/linux_bench.h"
#include "bench/loop.h"

static const char *problem;

static void expect(int ok, const char *what)
{
    if (!ok && !problem)
        problem = what;
}

static const char *prepare(void)
{
    problem = 0;
    return 0;
}

static const char *check(void)
{
    return problem;
}

/* Two threads, started together: the pair the two benchmarks time. */
static int run_pair(void *(*a)(void *), void *(*b)(void *), void *arg)
{
    pthread_t ta, tb;

    if (pthread_create(&ta, 0, a, arg) != 0)
        return 0;
    if (pthread_create(&tb, 0, b, arg) != 0) {
        pthread_cancel(ta);
        pthread_join(ta, 0);
        return 0;
    }
    pthread_join(ta, 0);
    pthread_join(tb, 0);
    return 1;
}

struct yields {
    uint64_t n;     /* yields of the timing thread */
    uint64_t ticks; /* what they took */
    volatile int done, started;
};

/* Both threads wait until both run, so every timed yield has a partner. */
static void *yield_and_time(void *arg)
{
    struct yields *y = arg;

    __atomic_add_fetch(&y->started, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&y->started, __ATOMIC_ACQUIRE) < 2)
        sched_yield();
    uint64_t t = BENCH_TIME_LOOP(y->n, sched_yield());
    y->ticks = t;
    y->done = 1;
    return 0;
}

static void *yield_until_done(void *arg)
{
    struct yields *y = arg;

    __atomic_add_fetch(&y->started, 1, __ATOMIC_ACQ_REL);
    while (!y->done)
        sched_yield();
    return 0;
}

/* Each yield of the timing thread is a switch away and one back. */
static uint64_t measure_ctx_switch(uint64_t n)
{
    struct yields y = {.n = (n + 1) / 2};

    expect(run_pair(yield_and_time, yield_until_done, &y), "cannot start two threads");
    return y.ticks * n / (2 * y.n);
}

struct pingpong {
    uint64_t rounds, ticks, wrong;
    int ping[2], pong[2];
};

static void *ping(void *arg)
{
    struct pingpong *p = arg;
    uint64_t t0 = bench_cycles();

    for (uint64_t i = 0; i < p->rounds; i++) {
        unsigned char out = (unsigned char)i, back = 0;
        if (write(p->ping[1], &out, 1) != 1 || read(p->pong[0], &back, 1) != 1)
            back = out; /* counted below */
        p->wrong += back != (unsigned char)(out + 1);
    }
    p->ticks = bench_cycles() - t0;
    return 0;
}

static void *pong(void *arg)
{
    struct pingpong *p = arg;

    for (uint64_t i = 0; i < p->rounds; i++) {
        unsigned char b;
        if (read(p->ping[0], &b, 1) != 1)
            break;
        b++;
        if (write(p->pong[1], &b, 1) != 1)
            break;
    }
    return 0;
}

static uint64_t measure_pingpong(uint64_t n)
{
    struct pingpong p = {.rounds = n};

    if (pipe(p.ping) != 0 || pipe(p.pong) != 0) {
        expect(0, "cannot make two pipes");
        return 0;
    }
    expect(run_pair(ping, pong, &p), "cannot start two threads");
    expect(p.wrong == 0, "a reply was not the byte sent plus one");
    for (int i = 0; i < 2; i++) {
        close(p.ping[i]);
        close(p.pong[i]);
    }
    return p.ticks;
}

static uint64_t measure_syscall(uint64_t n)
{
    pid_t parent = getppid();
    uint64_t wrong = 0;
    uint64_t t = BENCH_TIME_LOOP(n, wrong += syscall(SYS_getppid) != parent);

    expect(wrong == 0, "getppid() changed its answer");
    return t;
}

/* Iterations as bench/sched_bench.c's and xen/bench.c's. */
const struct linux_bench sched_benches[] = {
    {"ctx_switch", 10000, false, prepare, measure_ctx_switch, check},
    {"channel_pingpong", 5000, false, prepare, measure_pingpong, check},
    {"null_syscall", 20000, true, prepare, measure_syscall, check},
};
const unsigned sched_bench_count = sizeof(sched_benches) / sizeof(sched_benches[0]);
