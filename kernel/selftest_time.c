/* The boot self-test of time. It checks what the kernel will rely on, not
 * how accurate the platform is: under emulation, timings are noise, so
 * only gross failures (no ticks, time running backwards or standing still)
 * fail the run.
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
#define TICK_PERIOD_NS (10 * NSEC_PER_MSEC)
#define TICKS_WANTED 10
/* The bounds tell a timer that does not work from a slow one, nothing
 * finer: nothing bounds how late a tick is under emulation (the host can
 * stall QEMU, Xen can run dom0 first), so half the ticks within 2 s, 20
 * times their 100 ms, pass. A domU clock that stood still until Xen's 1 s
 * calibration once made ticks 1 s late and passed only by that margin;
 * check_monotonic catches it now. */
#define TICKS_REQUIRED 5
#define GIVE_UP_NS (2 * NSEC_PER_SEC)          /* no tick by then is a failure */
#define PENDING_SETTLE_NS (10 * NSEC_PER_MSEC) /* for the timer to fire while disabled */
#define PENDING_ATTEMPTS 3

/* ns as ms with one decimal, rounded: two arguments for "%lu.%lu". */
#define MS_1DP(ns) ((ns) + 50000) / NSEC_PER_MSEC, ((ns) + 50000) / 100000 % 10

static volatile unsigned ticks;
static uint64_t window_start;
static uint64_t tick_ns[TICKS_WANTED];

/* The reads must also move the clock: each scales a fresh TSC read, and
 * over 100000 reads any TSC moves (Xen's emulated one too: pv_soft_rdtsc
 * gives every rdtsc a later system time than the one before). */
static void check_monotonic(void)
{
    uint64_t first = time_now_ns(), prev = first;

    for (unsigned i = 1; i <= MONOTONIC_READS; i++) {
        uint64_t now = time_now_ns();
        if (now < prev)
            panic("time went backwards: read %u gave %lu ns after %lu ns", i, now, prev);
        prev = now;
    }
    if (prev == first)
        panic("time: the clock stood still at %lu ns over %u reads", first, MONOTONIC_READS);
    kprintf("time: monotonic over %u reads\n", MONOTONIC_READS);
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

/* Re-arms a one-shot every TICK_PERIOD_NS, halting in between. */
static void check_periodic_ticks(void)
{
    uint64_t give_up;

    ticks = 0;
    timer_set_callback(on_periodic_tick);
    window_start = time_now_ns();
    give_up = window_start + GIVE_UP_NS;
    timer_arm(window_start + TICK_PERIOD_NS);
    if (!poll_for_ticks(&ticks, 1, give_up))
        panic("timer: no tick within %lu ms of arming one %lu ms ahead", GIVE_UP_NS / NSEC_PER_MSEC,
              TICK_PERIOD_NS / NSEC_PER_MSEC);
    while (ticks < TICKS_WANTED && time_now_ns() < give_up) {
        safe_halt();
        irq_disable();
    }
    timer_set_callback(0);
    if (ticks < TICKS_REQUIRED)
        panic("timer: only %u of %u ticks within %lu ms", ticks, TICKS_WANTED,
              GIVE_UP_NS / NSEC_PER_MSEC);
    report_ticks(ticks);
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
 * disabled, until the timer has surely fired: enable() must deliver it
 * before it returns. Returns false if it came only later. */
static bool pending_delivered_on(void (*enable)(void))
{
    uint64_t armed_at;
    unsigned seen;

    pending_ticks = 0;
    armed_at = time_now_ns();
    timer_arm(armed_at);
    spin_until(armed_at + PENDING_SETTLE_NS);
    if (pending_ticks)
        panic("irq: the timer interrupt arrived while interrupts were disabled");
    enable();
    seen = pending_ticks;
    irq_disable();
    if (seen)
        return true;
    if (!poll_for_ticks(&pending_ticks, 1, time_now_ns() + GIVE_UP_NS))
        panic("irq: a timer armed in the past never fired");
    return false;
}

/* The case a paravirt backend must get right, for both ops that can turn
 * interrupts on: an event that arrived while masked is delivered when
 * unmasked, not at some later event. Retried: under emulation the timer
 * may fire later than it should. */
static void check_pending_delivery(const char *op, void (*enable)(void))
{
    unsigned attempt = 1;

    timer_set_callback(on_pending_tick);
    while (!pending_delivered_on(enable)) {
        if (++attempt > PENDING_ATTEMPTS)
            panic("irq: a timer pending while interrupts were disabled was not delivered "
                  "by %s, in %u attempts",
                  op, PENDING_ATTEMPTS);
    }
    timer_set_callback(0);
    kprintf("irq: pending timer delivered on %s%s\n", op, attempt > 1 ? " (after a retry)" : "");
}

void selftest_time(void)
{
    irq_disable();
    check_monotonic();
    check_periodic_ticks();
    check_pending_delivery("irq_enable", enable_interrupts);
    check_pending_delivery("irq_restore", restore_enabled);
}
