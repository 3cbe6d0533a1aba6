/* The boot self-test of time. It checks what the kernel will rely on, not
 * how accurate the platform is: under emulation, timings are noise, so
 * only gross failures fail the run: a clock whose rate is off by a factor
 * (against a second clock), a timer that fires early by a factor (against
 * the clock), time running backwards or standing still, a tick or an
 * interrupt that never comes. How late ticks come is reported.
 *
 * Every wait is bounded by the platform clock. A halt can only end with an
 * interrupt, so the test halts only once polling has shown that the timer
 * delivers, and always with the next deadline armed. */
#include "kernel/main.h"

#include <stdbool.h>
#include <stdint.h>

#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/time.h"
#include "pv/irq.h"

#define MONOTONIC_READS 100000
/* Reads stop early once the clock has moved this far: where a read traps
 * into the hypervisor (a PVH guest's rdtsc under TCG, ~80 us a read) the
 * full count would take seconds of every boot. */
#define MONOTONIC_WINDOW_NS (20 * NSEC_PER_MSEC)
#define MONOTONIC_MIN_READS 1000

/* The rate check: RATE_WINDOW_NS of the clock, timed by the reference
 * too (which ends the window of a clock too slow to, at 10 times its
 * length). Its bounds are a correctness check, not a timing one: a
 * miscalibrated clock is off by a factor (4 under time.miscalibrate, over
 * 100 for a PVH domU calibrated against the PIT it does not have), host
 * noise under TCG by a few per cent, so outside 2/3..3/2 the rate is
 * wrong. 20 ms is short: under icount a window is 20 million
 * instructions of polling, in every boot, and the brackets below keep it
 * within 10%. */
#define RATE_WINDOW_NS (20 * NSEC_PER_MSEC)
#define RATE_REF_LIMIT_NS (10 * RATE_WINDOW_NS)
#define RATE_MIN_PERMILLE 667
#define RATE_MAX_PERMILLE 1500
#define RATE_ATTEMPTS 3
/* Each end of the window is a clock read between two reference reads at
 * most this far apart (at most 5% of the window off), so a vCPU
 * descheduled between the reads moves neither end on one clock only. */
#define RATE_BRACKET_NS NSEC_PER_MSEC
#define RATE_BRACKET_TRIES 100

#define TICK_PERIOD_NS (10 * NSEC_PER_MSEC)
#define TICKS_WANTED 10
/* The one-shot's rate against the clock: a timer asked for a wait that
 * first fires before 2/3 of it is off by a factor (the guest's own
 * calibration gone wrong, as under time.miscalibrate with xen.timer=lapic).
 * Late is host noise, never checked; but lateness also hides a timer too
 * fast, so the wait is long (60 ms: 4 times too fast passes only with a
 * delivery 25 ms late), and a sound timer's check ends at 2/3 of it with
 * nothing delivered. Retried for a stray early event, which on a busy
 * host came in two attempts running (a make test boot failed so). */
#define TIMER_RATE_WAIT_NS (60 * NSEC_PER_MSEC)
#define TIMER_RATE_ATTEMPTS 4
#define PENDING_SETTLE_NS (10 * NSEC_PER_MSEC) /* for the timer to fire while disabled */
#define PENDING_ATTEMPTS 3                     /* each settling 10 times longer */

/* ns as ms with one decimal, rounded: two arguments for "%lu.%lu". */
#define MS_1DP(ns) ((ns) + 50000) / NSEC_PER_MSEC, ((ns) + 50000) / 100000 % 10
/* A ratio in thousandths as "%lu.%03lu". */
#define RATIO_3DP(permille) (permille) / 1000, (permille) % 1000

static volatile unsigned ticks;
static uint64_t window_start;
static uint64_t tick_ns[TICKS_WANTED];

/* The reads must also move the clock: each scales a fresh TSC read, and
 * over a thousand reads any TSC moves (Xen's emulated one too:
 * pv_soft_rdtsc gives every rdtsc a later system time than the one before). */
static void check_monotonic(void)
{
    uint64_t first = time_now_ns(), prev = first;
    unsigned i = 1;

    for (; i <= MONOTONIC_READS; i++) {
        uint64_t now = time_now_ns();
        if (now < prev)
            panic("time went backwards: read %u gave %lu ns after %lu ns", i, now, prev);
        prev = now;
        if (i >= MONOTONIC_MIN_READS && now - first >= MONOTONIC_WINDOW_NS)
            break;
    }
    i = i > MONOTONIC_READS ? MONOTONIC_READS : i;
    if (prev == first)
        panic("time: the clock stood still at %lu ns over %u reads", first, i);
    kprintf("time: monotonic over %u reads\n", i);
}

struct rate_sample {
    uint64_t clock, ref;
};

struct rate {
    uint64_t clock_ns, ref_ns, permille; /* permille: clock/reference in thousandths */
};

/* A clock read with the reference's time at it (the midpoint of the two
 * reads around it), or false if none of the tries was bracketed closely. */
static bool rate_sample(struct rate_sample *s)
{
    const char *name;

    for (unsigned i = 0; i < RATE_BRACKET_TRIES; i++) {
        uint64_t before = time_reference_ns(&name);
        uint64_t clock = time_now_ns();
        uint64_t after = time_reference_ns(&name);

        if (after - before <= RATE_BRACKET_NS) {
            *s = (struct rate_sample){clock, before + (after - before) / 2};
            return true;
        }
    }
    return false;
}

/* One window; false if either end could not be bracketed. The reference
 * is read all along, as a counter that wraps must be. */
static bool measure_rate(struct rate *r)
{
    struct rate_sample start, end;
    const char *name;

    if (!rate_sample(&start))
        return false;
    while (time_now_ns() - start.clock < RATE_WINDOW_NS &&
           time_reference_ns(&name) - start.ref < RATE_REF_LIMIT_NS)
        ;
    if (!rate_sample(&end))
        return false;
    r->clock_ns = end.clock - start.clock;
    r->ref_ns = end.ref - start.ref;
    r->permille = r->ref_ns ? (r->clock_ns * 1000 + r->ref_ns / 2) / r->ref_ns : UINT64_MAX;
    return true;
}

/* How far from 1 a ratio is, either way, in thousandths above 1. */
static uint64_t rate_error(const struct rate *r)
{
    return r->permille >= 1000 ? r->permille : r->permille ? 1000000 / r->permille : UINT64_MAX;
}

/* The clock against a second one the platform offers, which does not
 * share its calibration. Retried, as a window may take in a jump of
 * either clock (a hypervisor correcting its own); the closest of the
 * attempts is what a failure reports. Windows that could not be measured
 * at all say so and pass: only the reference times the brackets, so no
 * clock rate, right or wrong, can cause that, only a host too busy. */
static void check_rate(void)
{
    const char *name;
    struct rate r, closest = {0, 0, UINT64_MAX};
    unsigned measured = 0;

    if (!time_reference_ns(&name)) {
        kprintf("time: rate not checked: %s\n", name);
        return;
    }
    for (unsigned attempt = 1; attempt <= RATE_ATTEMPTS; attempt++) {
        if (!measure_rate(&r))
            continue;
        measured++;
        if (r.permille >= RATE_MIN_PERMILLE && r.permille <= RATE_MAX_PERMILLE) {
            kprintf("time: rate checked against %s: clock/reference = %lu.%03lu%s\n", name,
                    RATIO_3DP(r.permille), attempt > 1 ? " (after a retry)" : "");
            return;
        }
        if (rate_error(&r) <= rate_error(&closest))
            closest = r;
    }
    if (measured) {
        kprintf("time: rate wrong against %s: clock/reference = %lu.%03lu (the clock counted "
                "%lu.%lu ms while the reference counted %lu.%lu ms; the closest of %u windows)\n",
                name, RATIO_3DP(closest.permille), MS_1DP(closest.clock_ns), MS_1DP(closest.ref_ns),
                measured);
        panic("time: the clock runs at %lu.%03lu times the rate of %s, outside %u.%03u..%u.%03u",
              RATIO_3DP(closest.permille), name, RATIO_3DP(RATE_MIN_PERMILLE),
              RATIO_3DP(RATE_MAX_PERMILLE));
    }
    kprintf("time: rate not checked against %s: in %u windows, no clock read came between two of "
            "its reads less than %lu us apart (a busy host)\n",
            name, RATE_ATTEMPTS, RATE_BRACKET_NS / NSEC_PER_USEC);
}

/* Waits with interrupts disabled: the platform clock must move anyway. */
static void spin_until(uint64_t deadline_ns)
{
    while (time_now_ns() < deadline_ns)
        ;
}

/* Polls, interrupts enabled, until *counter reaches want or the clock passes
 * give_up. No halt: a timer that never fires cannot hang the run. */
static bool poll_for_ticks(volatile unsigned *counter, unsigned want, uint64_t give_up)
{
    irq_enable();
    while (*counter < want && time_now_ns() < give_up)
        ;
    irq_disable();
    return *counter >= want;
}

/* Fixed deadlines, TICK_PERIOD_NS apart from window_start, so a late tick
 * does not delay the ones after it. */
static void on_periodic_tick(void)
{
    unsigned n = ticks;

    if (n >= TICKS_WANTED)
        return;
    tick_ns[n] = time_now_ns();
    ticks = n + 1;
    if (n + 1 < TICKS_WANTED)
        timer_arm(window_start + (n + 2) * TICK_PERIOD_NS);
}

static void report_ticks(unsigned n)
{
    uint64_t prev = window_start, min = UINT64_MAX, max = 0;

    for (unsigned i = 0; i < n; i++) {
        uint64_t interval = tick_ns[i] - prev;
        min = interval < min ? interval : min;
        max = interval > max ? interval : max;
        prev = tick_ns[i];
    }
    kprintf(
        "timer: %u ticks in %lu.%lu ms (interval min %lu.%lu / mean %lu.%lu / max %lu.%lu ms)\n", n,
        MS_1DP(prev - window_start), MS_1DP(min), MS_1DP((prev - window_start) / n), MS_1DP(max));
}

/* Re-arms a one-shot every TICK_PERIOD_NS, halting in between. Every tick
 * must come; how late is for report_ticks to say. */
static void check_periodic_ticks(void)
{
    uint64_t give_up;

    ticks = 0;
    timer_set_callback(on_periodic_tick);
    window_start = time_now_ns();
    give_up = window_start + SELFTEST_NEVER_NS;
    timer_arm(window_start + TICK_PERIOD_NS);
    if (!poll_for_ticks(&ticks, 1, give_up))
        panic("timer: no tick within %lu s of arming one %lu ms ahead",
              SELFTEST_NEVER_NS / NSEC_PER_SEC, TICK_PERIOD_NS / NSEC_PER_MSEC);
    while (ticks < TICKS_WANTED && time_now_ns() < give_up) {
        safe_halt();
        irq_disable();
    }
    timer_set_callback(0);
    if (ticks < TICKS_WANTED)
        panic("timer: only %u of %u ticks within %lu s", ticks, TICKS_WANTED,
              SELFTEST_NEVER_NS / NSEC_PER_SEC);
    report_ticks(ticks);
}

/* When the platform first delivered one wait, as thousandths of it;
 * RATE_MIN_PERMILLE if it delivered nothing before that. The wait is
 * left armed: the next check arms its own over it. */
static uint64_t first_delivery_permille(void)
{
    uint64_t armed_at = time_now_ns(), first;

    timer_arm(armed_at + TIMER_RATE_WAIT_NS);
    irq_enable();
    while (!timer_first_delivery_ns() &&
           time_now_ns() - armed_at < TIMER_RATE_WAIT_NS * RATE_MIN_PERMILLE / 1000)
        ;
    irq_disable();
    first = timer_first_delivery_ns();
    if (!first)
        return RATE_MIN_PERMILLE;
    return first > armed_at ? (first - armed_at) * 1000 / TIMER_RATE_WAIT_NS : 0;
}

/* The clock is checked against the reference; the timer that ends every
 * sleep is checked against the clock, as the periodic ticks cannot be:
 * kernel/time.c arms a delivery that came early again for the rest. */
static void check_timer_rate(void)
{
    uint64_t latest = 0;

    for (unsigned attempt = 1; attempt <= TIMER_RATE_ATTEMPTS; attempt++) {
        uint64_t permille = first_delivery_permille();

        if (permille >= RATE_MIN_PERMILLE) {
            kprintf("timer: rate checked against the clock: no early delivery%s\n",
                    attempt > 1 ? " (after a retry)" : "");
            return;
        }
        latest = permille > latest ? permille : latest;
    }
    kprintf("timer: rate wrong against the clock: asked for %lu ms, it first fired after "
            "%lu.%03lu of that (the latest of %u attempts)\n",
            TIMER_RATE_WAIT_NS / NSEC_PER_MSEC, RATIO_3DP(latest), TIMER_RATE_ATTEMPTS);
    panic("timer: the one-shot fires at %lu.%03lu of the time asked, below %u.%03u: its rate is "
          "wrong against the clock",
          RATIO_3DP(latest), RATIO_3DP(RATE_MIN_PERMILLE));
}

static volatile unsigned pending_ticks;

static void on_pending_tick(void)
{
    pending_ticks++;
}

/* Out of line, as an ops call is: natively a bare sti takes effect one
 * instruction late, and that instruction must not be the caller's check. */
__attribute__((noinline)) static void enable_interrupts(void)
{
    irq_enable();
}

__attribute__((noinline)) static void restore_enabled(void)
{
    irq_restore(X86_EFLAGS_IF);
}

/* Arms a deadline already past with interrupts disabled and waits, still
 * disabled, settle_ns for the timer to fire: enable() must deliver it
 * before it returns. Returns false if it came only later. */
static bool pending_delivered_on(void (*enable)(void), uint64_t settle_ns)
{
    uint64_t armed_at;
    unsigned seen;

    pending_ticks = 0;
    armed_at = time_now_ns();
    timer_arm(armed_at);
    spin_until(armed_at + settle_ns);
    if (pending_ticks)
        panic("irq: the timer interrupt arrived while interrupts were disabled");
    enable();
    seen = pending_ticks;
    irq_disable();
    if (seen)
        return true;
    if (!poll_for_ticks(&pending_ticks, 1, time_now_ns() + SELFTEST_NEVER_NS))
        panic("irq: a timer armed in the past did not fire within %lu s",
              SELFTEST_NEVER_NS / NSEC_PER_SEC);
    return false;
}

/* The case a paravirt backend must get right, for both ops that can turn
 * interrupts on: an event that arrived while masked is delivered when
 * unmasked, not at some later event. Retried, each time waiting 10 times
 * longer for it to arrive: under emulation the timer may fire later than
 * it should (a busy host can hold QEMU's timer thread back). */
static void check_pending_delivery(const char *op, void (*enable)(void))
{
    unsigned attempt = 1;
    uint64_t settle_ns = PENDING_SETTLE_NS;

    timer_set_callback(on_pending_tick);
    while (!pending_delivered_on(enable, settle_ns)) {
        if (++attempt > PENDING_ATTEMPTS)
            panic("irq: a timer pending while interrupts were disabled was not delivered "
                  "by %s, in %u attempts",
                  op, PENDING_ATTEMPTS);
        settle_ns *= 10;
    }
    timer_set_callback(0);
    kprintf("irq: pending timer delivered on %s%s\n", op, attempt > 1 ? " (after a retry)" : "");
}

void selftest_time(void)
{
    irq_disable();
    check_monotonic();
    check_rate();
    check_periodic_ticks();
    check_timer_rate();
    check_pending_delivery("irq_enable", enable_interrupts);
    check_pending_delivery("irq_restore", restore_enabled);
}
