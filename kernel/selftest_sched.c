/* The boot self-test of the scheduler. Under emulation time is noise, so
 * only gross failures fail the run: a wrong count, a thread that never
 * runs, a wakeup that never comes. How long things took, and how late a
 * sleep woke, are printed for people. */
#include "kernel/main.h"

#include <stdbool.h>
#include <stdint.h>

#include "kernel/channel.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/sched_core.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "pv/lock_ops.h"
#include "kernel/time.h"

/* The spinning threads run this long, then on until every thread and
 * every CPU has done some of the work (or SELFTEST_NEVER_NS has passed):
 * with more vCPUs than physical CPUs a vCPU can wait whole hypervisor
 * slices, and with plain spinning locks its threads longer still. */
#define SPIN_TEST_NS (200 * NSEC_PER_MSEC)

#define MESSAGES 1000000
/* One message per channel operation: 1M of them take about a second under
 * QEMU TCG on one CPU. With several, producer and consumer run at once and
 * every operation hands the channel's lock from one CPU to the other,
 * which under emulation costs tens of microseconds: so batches there. */
#define MESSAGES_PER_SEND_ONE_CPU 1
#define MESSAGES_PER_SEND_SMP 64
#define CHANNEL_BYTES 4096

#define SLEEPS 5 /* of 1, 2, ... SLEEPS ms */

_Static_assert(MESSAGES % MESSAGES_PER_SEND_SMP == 0, "every send is full");

static struct thread *must_create(const char *name, void (*entry)(void *), void *arg)
{
    struct thread *t = thread_create(name, entry, arg);

    if (!t)
        panic("sched: no stack slot for thread %s", name);
    return t;
}

/* ---- One more thread than CPUs, none of which yields: only the tick can
 * share the CPUs, and every CPU must do some of the work. */

#define SPINNERS_MAX (MAX_CPUS + 1)

struct spinner {
    volatile uint64_t count;
};

static volatile bool spinners_stop;
static volatile uint64_t work_on_cpu[MAX_CPUS];

static void spin(void *arg)
{
    struct spinner *s = arg;

    while (!spinners_stop) {
        s->count++;
        work_on_cpu[cpu_index()]++; /* racy between CPUs: a tally, not a count */
    }
}

static bool all_ran(const struct spinner *s, unsigned n, unsigned cpus)
{
    for (unsigned i = 0; i < n; i++) {
        if (s[i].count == 0)
            return false;
    }
    for (unsigned c = 0; c < cpus; c++) {
        if (work_on_cpu[c] == 0)
            return false;
    }
    return true;
}

static void print_work_per_cpu(unsigned cpus)
{
    char line[256];
    size_t len = 0;

    for (unsigned c = 0; c < cpus && len < sizeof(line); c++)
        len += (size_t)ksnprintf(line + len, sizeof(line) - len, "%scpu%u=%lu", c ? " " : "", c,
                                 work_on_cpu[c]);
    kprintf("sched: work per CPU: %s\n", line);
    for (unsigned c = 0; c < cpus; c++) {
        if (work_on_cpu[c] == 0)
            panic("sched: cpu %u ran none of the spinning threads", c);
    }
}

static void check_preemption(void)
{
    static const char *const names[SPINNERS_MAX] = {
        "spin-a", "spin-b", "spin-c", "spin-d", "spin-e", "spin-f", "spin-g", "spin-h", "spin-i"};
    struct spinner s[SPINNERS_MAX] = {0};
    struct thread *t[SPINNERS_MAX];
    unsigned cpus = smp_cpus_online(), n = cpus + 1;
    uint64_t preempted = sched_preemptions();

    spinners_stop = false;
    for (unsigned c = 0; c < MAX_CPUS; c++)
        work_on_cpu[c] = 0;
    for (unsigned i = 0; i < n; i++)
        t[i] = must_create(names[i], spin, &s[i]);
    uint64_t start = time_now_ns();
    sleep_until(start + SPIN_TEST_NS);
    while (!all_ran(s, n, cpus) && time_now_ns() < start + SELFTEST_NEVER_NS)
        sleep_until(time_now_ns() + 10 * NSEC_PER_MSEC);
    spinners_stop = true;
    for (unsigned i = 0; i < n; i++)
        thread_join(t[i]);
    preempted = sched_preemptions() - preempted;
    kprintf("sched: %u spinning threads all ran (a=%lu b=%lu, %lu preemptions)\n", n, s[0].count,
            s[1].count, preempted);
    for (unsigned i = 0; i < n; i++) {
        if (s[i].count == 0)
            panic("sched: a thread that never yields starved %s (%lu preemptions)", names[i],
                  preempted);
    }
    if (preempted == 0)
        panic("sched: %u threads that never yield on %u CPUs, and no preemption", n, cpus);
    print_work_per_cpu(cpus);
}

/* ---- Two threads contending for one lock, held across preemptions. */

/* 8 rounds of 2 ms outlast a default 10 ms slice, so the first holder is
 * preempted holding the lock at least once; a spinning waiter on one CPU
 * then burns a whole slice, which is most of this test's time. */
#define LOCK_ROUNDS 8
#define LOCK_HOLD_NS (2 * NSEC_PER_MSEC) /* long enough for ticks to land inside */

static struct spinlock contended;
static volatile uint64_t guarded_count;

/* A slow, non-atomic increment under the lock: a lost update shows a
 * broken lock. Interrupts stay on and the lock is the one preemptible
 * kind, so the holder gets preempted. */
static void hold_and_increment(void *arg)
{
    (void)arg;
    for (int i = 0; i < LOCK_ROUNDS; i++) {
        spin_lock_preemptible(&contended);
        uint64_t seen = guarded_count;
        uint64_t until = time_now_ns() + LOCK_HOLD_NS;
        while (time_now_ns() < until)
            ;
        guarded_count = seen + 1;
        spin_unlock_preemptible(&contended);
    }
}

static void check_contended_lock(void)
{
    uint64_t blocked = pv_lock_counter(pv_lock_ops.blocked);

    guarded_count = 0;
    struct thread *ta = must_create("lock-a", hold_and_increment, 0);
    struct thread *tb = must_create("lock-b", hold_and_increment, 0);
    thread_join(ta);
    thread_join(tb);
    blocked = pv_lock_counter(pv_lock_ops.blocked) - blocked;
    kprintf("sched: contended %s lock kept %lu increments exact (waiters blocked %lu times)\n",
            spin_lock_kind(), guarded_count, blocked);
    if (guarded_count != 2 * LOCK_ROUNDS)
        panic("sched: %lu increments under a lock, expected %d", guarded_count, 2 * LOCK_ROUNDS);
}

/* ---- A producer and a consumer over a channel. */

static struct channel channel;
static uint8_t channel_buffer[CHANNEL_BYTES];
static uint64_t received_checksum;
static unsigned per_send;

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
    uint64_t batch[MESSAGES_PER_SEND_SMP];

    (void)unused;
    for (uint64_t i = 0; i < MESSAGES; i += per_send) {
        for (unsigned j = 0; j < per_send; j++)
            batch[j] = message(i + j);
        channel_send(&channel, batch, per_send * sizeof(batch[0]));
    }
}

static void consume(void *unused)
{
    uint64_t batch[MESSAGES_PER_SEND_SMP], sum = 0;

    (void)unused;
    for (uint64_t i = 0; i < MESSAGES; i += per_send) {
        channel_recv(&channel, batch, per_send * sizeof(batch[0]));
        for (unsigned j = 0; j < per_send; j++)
            sum = checksum_add(sum, batch[j]);
    }
    received_checksum = sum;
}

static void check_channel(void)
{
    uint64_t expected = 0, start = time_now_ns(), switches = sched_switches();

    per_send = smp_cpus_online() > 1 ? MESSAGES_PER_SEND_SMP : MESSAGES_PER_SEND_ONE_CPU;
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
        MESSAGES, received_checksum, per_send, took_ms, switches);
    if (received_checksum != expected)
        panic("sched: channel checksum 0x%lx, expected 0x%lx", received_checksum, expected);
}

/* ---- A thread sleeping to a deadline, a few times over. */

static uint64_t sleep_worst_ns, sleep_total_ns;
static bool sleeps_done;

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
    __atomic_store_n(&sleeps_done, true, __ATOMIC_RELEASE);
}

/* ns as ms with two decimals, truncated: two arguments for "%lu.%02lu". */
#define MS_2DP(ns) (ns) / NSEC_PER_MSEC, (ns) / (10 * NSEC_PER_USEC) % 100

/* Lateness is the host's, so it is only reported. A wakeup that never
 * comes would hang thread_join() without a word, so the boot thread
 * watches instead: it yields rather than sleeps, needing no wakeup of its
 * own, and a woken sleeper runs at its next yield, about as soon as it
 * would on an idle CPU. */
static void check_sleep(void)
{
    struct thread *sleeper;
    uint64_t start = time_now_ns();

    sleeps_done = false;
    sleeper = must_create("sleeper", sleep_repeatedly, 0);
    while (!__atomic_load_n(&sleeps_done, __ATOMIC_ACQUIRE)) {
        if (time_now_ns() - start > SELFTEST_NEVER_NS)
            panic("sched: %d sleeps of 1 to %d ms have not ended after %lu s: a wakeup never came",
                  SLEEPS, SLEEPS, SELFTEST_NEVER_NS / NSEC_PER_SEC);
        thread_yield();
    }
    thread_join(sleeper);
    kprintf("sched: sleep woke %lu.%02lu ms after its deadline (worst of %d; mean %lu.%02lu ms)\n",
            MS_2DP(sleep_worst_ns), SLEEPS, MS_2DP(sleep_total_ns / SLEEPS));
}

void selftest_sched(void)
{
    thread_check_stack_guards();
    check_preemption();
    check_contended_lock();
    check_channel();
    check_sleep();
}
