/* The boot self-test of the scheduler. Under emulation time is noise, so
 * only gross failures fail the run; the numbers are printed for people. */
#include "kernel/main.h"

#include <stdbool.h>
#include <stdint.h>

#include "kernel/channel.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/sched_core.h"
#include "kernel/spinlock.h"
#include "pv/lock_ops.h"
#include "kernel/time.h"

#define SPIN_TEST_NS (200 * NSEC_PER_MSEC)

#define MESSAGES 1000000
/* One message per channel operation: 1M of them take about a second under
 * QEMU TCG. Raise it if a platform makes that too slow. */
#define MESSAGES_PER_SEND 1
#define CHANNEL_BYTES 4096

#define SLEEPS 5 /* of 1, 2, ... SLEEPS ms */
#define SLEEP_LATE_LIMIT_NS NSEC_PER_SEC

_Static_assert(MESSAGES % MESSAGES_PER_SEND == 0, "every send is full");

static struct thread *must_create(const char *name, void (*entry)(void *), void *arg)
{
    struct thread *t = thread_create(name, entry, arg);

    if (!t)
        panic("sched: no stack slot for thread %s", name);
    return t;
}

/* ---- Two threads that never yield: only the tick can share the CPU. */

struct spinner {
    volatile uint64_t count;
};

static volatile bool spinners_stop;

static void spin(void *arg)
{
    struct spinner *s = arg;

    while (!spinners_stop)
        s->count++;
}

static void check_preemption(void)
{
    struct spinner a = {0}, b = {0};
    uint64_t preempted = sched_preemptions();

    spinners_stop = false;
    struct thread *ta = must_create("spin-a", spin, &a);
    struct thread *tb = must_create("spin-b", spin, &b);
    sleep_until(time_now_ns() + SPIN_TEST_NS);
    spinners_stop = true;
    thread_join(ta);
    thread_join(tb);
    preempted = sched_preemptions() - preempted;
    kprintf("sched: 2 spinning threads both ran (a=%lu b=%lu, %lu preemptions)\n", a.count, b.count,
            preempted);
    if (a.count == 0 || b.count == 0 || preempted == 0)
        panic("sched: a thread that never yields starved another (a=%lu b=%lu, %lu preemptions)",
              a.count, b.count, preempted);
}

/* ---- Two threads contending for one lock, held across preemptions. */

#define LOCK_ROUNDS 20
#define LOCK_HOLD_NS (2 * NSEC_PER_MSEC) /* long enough for ticks to land inside */

static struct spinlock contended;
static volatile uint64_t guarded_count;

/* A slow, non-atomic increment under the lock: a lost update shows a
 * broken lock. Interrupts stay on, so the holder gets preempted. */
static void hold_and_increment(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCK_ROUNDS; i++) {
        spin_lock(&contended);
        uint64_t seen = guarded_count;
        uint64_t until = time_now_ns() + LOCK_HOLD_NS;
        while (time_now_ns() < until)
            ;
        guarded_count = seen + 1;
        spin_unlock(&contended);
    }
}

static void check_contended_lock(void)
{
    uint64_t blocked = pv_lock_ops.blocked ? pv_lock_ops.blocked() : 0;

    guarded_count = 0;
    struct thread *ta = must_create("lock-a", hold_and_increment, 0);
    struct thread *tb = must_create("lock-b", hold_and_increment, 0);
    thread_join(ta);
    thread_join(tb);
    if (pv_lock_ops.blocked)
        blocked = pv_lock_ops.blocked() - blocked;
    kprintf("sched: contended %s lock kept %lu increments exact (waiters blocked %lu times)\n",
            spin_lock_kind(), guarded_count, blocked);
    if (guarded_count != 2 * LOCK_ROUNDS)
        panic("sched: %lu increments under a lock, expected %d", guarded_count, 2 * LOCK_ROUNDS);
}

/* ---- A producer and a consumer over a channel. */

static struct channel channel;
static uint8_t channel_buffer[CHANNEL_BYTES];
static uint64_t received_checksum;

/* Distinct, position-dependent values, so a lost, repeated or reordered
 * message changes the checksum. */
static uint64_t message(uint64_t i)
{
    return i * 0x9e3779b97f4a7c15ULL + 1;
}

static uint64_t checksum_add(uint64_t sum, uint64_t m)
{
    return (sum ^ m) * 0x100000001b3ULL; /* FNV-1a's step, a word at a time */
}

static void produce(void *unused)
{
    uint64_t batch[MESSAGES_PER_SEND];

    (void)unused;
    for (uint64_t i = 0; i < MESSAGES; i += MESSAGES_PER_SEND) {
        for (int j = 0; j < MESSAGES_PER_SEND; j++)
            batch[j] = message(i + j);
        channel_send(&channel, batch, sizeof(batch));
    }
}

static void consume(void *unused)
{
    uint64_t batch[MESSAGES_PER_SEND], sum = 0;

    (void)unused;
    for (uint64_t i = 0; i < MESSAGES; i += MESSAGES_PER_SEND) {
        channel_recv(&channel, batch, sizeof(batch));
        for (int j = 0; j < MESSAGES_PER_SEND; j++)
            sum = checksum_add(sum, batch[j]);
    }
    received_checksum = sum;
}

static void check_channel(void)
{
    uint64_t expected = 0, start = time_now_ns(), switches = sched_switches();

    if (!channel_init(&channel, channel_buffer, sizeof(channel_buffer)))
        panic("sched: channel_init refused %zu bytes", sizeof(channel_buffer));
    struct thread *consumer = must_create("consumer", consume, 0);
    struct thread *producer = must_create("producer", produce, 0);
    thread_join(producer);
    thread_join(consumer);
    uint64_t took_ms = (time_now_ns() - start) / NSEC_PER_MSEC;
    switches = sched_switches() - switches;
    for (uint64_t i = 0; i < MESSAGES; i++)
        expected = checksum_add(expected, message(i));
    kprintf(
        "sched: channel moved %u messages, checksum 0x%lx (%u per send, %lu ms, %lu switches)\n",
        MESSAGES, received_checksum, MESSAGES_PER_SEND, took_ms, switches);
    if (received_checksum != expected)
        panic("sched: channel checksum 0x%lx, expected 0x%lx", received_checksum, expected);
}

/* ---- A thread sleeping to a deadline, a few times over. */

static uint64_t sleep_worst_ns, sleep_total_ns;

static void sleep_repeatedly(void *unused)
{
    (void)unused;
    for (int i = 1; i <= SLEEPS; i++) {
        uint64_t deadline = time_now_ns() + i * NSEC_PER_MSEC;
        sleep_until(deadline);
        uint64_t now = time_now_ns();
        if (now < deadline)
            panic("sched: sleep woke %lu ns before its deadline", deadline - now);
        sleep_total_ns += now - deadline;
        if (now - deadline > sleep_worst_ns)
            sleep_worst_ns = now - deadline;
    }
}

/* ns as ms with two decimals, truncated: two arguments for "%lu.%02lu". */
#define MS_2DP(ns) (ns) / NSEC_PER_MSEC, (ns) / (10 * NSEC_PER_USEC) % 100

static void check_sleep(void)
{
    thread_join(must_create("sleeper", sleep_repeatedly, 0));
    kprintf("sched: sleep woke %lu.%02lu ms after its deadline (worst of %d; mean %lu.%02lu ms)\n",
            MS_2DP(sleep_worst_ns), SLEEPS, MS_2DP(sleep_total_ns / SLEEPS));
    if (sleep_worst_ns > SLEEP_LATE_LIMIT_NS)
        panic("sched: sleep woke more than %lu ms late",
              (uint64_t)(SLEEP_LATE_LIMIT_NS / NSEC_PER_MSEC));
}

void selftest_sched(void)
{
    thread_check_stack_guards();
    check_preemption();
    check_contended_lock();
    check_channel();
    check_sleep();
}
