/* kernel/clock_scale.c: the multiply-and-shift conversions between clock
 * rates, against exact 128-bit arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernel/clock_scale.h"

#define NS_PER_SEC 1000000000ULL
#define HOUR 3600ULL

static uint64_t exact(uint64_t n, uint64_t from_hz, uint64_t to_hz)
{
    return (uint64_t)((unsigned __int128)n * to_hz / from_hz);
}

/* mult is the ratio rounded to 1/2^shift: a relative error of at most
 * 1/(2 mult), plus one unit for rounding the result down. */
static void assert_close(const struct clock_scale *s, uint64_t got, uint64_t want)
{
    uint64_t diff = got > want ? got - want : want - got;

    assert_true(diff <= 1 + want / s->mult);
}

static struct clock_scale scale(uint64_t from_hz, uint64_t to_hz)
{
    struct clock_scale s;

    assert_true(clock_scale_init(&s, from_hz, to_hz));
    return s;
}

static void test_one_ghz_is_exact(void **state)
{
    struct clock_scale s = scale(NS_PER_SEC, NS_PER_SEC);

    (void)state;
    assert_int_equal(clock_scale_apply(&s, 0), 0);
    assert_int_equal(clock_scale_apply(&s, 1), 1);
    assert_int_equal(clock_scale_apply(&s, 123456789), 123456789);
    assert_int_equal(clock_scale_apply(&s, UINT64_MAX), UINT64_MAX);
}

static void test_tsc_to_ns(void **state)
{
    static const uint64_t rates[] = {2893400000ULL, 2596142000ULL, 1000000000ULL,
                                     3999999999ULL, 1193182ULL,    10000000000ULL};

    (void)state;
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        uint64_t hz = rates[i];
        struct clock_scale s = scale(hz, NS_PER_SEC);
        assert_close(&s, clock_scale_apply(&s, hz), NS_PER_SEC);
        assert_close(&s, clock_scale_apply(&s, hz / 1000), exact(hz / 1000, hz, NS_PER_SEC));
        assert_close(&s, clock_scale_apply(&s, hz * HOUR), NS_PER_SEC * HOUR);
    }
}

/* Ten years of a 4 GHz TSC: the product needs more than 64 bits. */
static void test_long_uptime_does_not_overflow(void **state)
{
    uint64_t hz = 4000000000ULL, ticks = hz * HOUR * 24 * 3653;
    struct clock_scale s = scale(hz, NS_PER_SEC);

    (void)state;
    assert_close(&s, clock_scale_apply(&s, ticks), exact(ticks, hz, NS_PER_SEC));
}

/* ns to the ticks of a slower timer, as for the local APIC's count. */
static void test_ns_to_timer_ticks(void **state)
{
    struct clock_scale apic = scale(NS_PER_SEC, 1000000000ULL);
    struct clock_scale bus = scale(NS_PER_SEC, 100000000ULL);
    struct clock_scale odd = scale(NS_PER_SEC, 1004871234ULL);

    (void)state;
    assert_int_equal(clock_scale_apply(&apic, 10000000), 10000000);
    assert_close(&bus, clock_scale_apply(&bus, 10000000), 1000000);
    assert_close(&odd, clock_scale_apply(&odd, 10000000),
                 exact(10000000, NS_PER_SEC, 1004871234ULL));
}

/* The largest shift is taken: mult keeps 32 significant bits whenever the
 * ratio is at least 1/2 (shift is at most 32). */
static void test_mult_fits_and_is_precise(void **state)
{
    for (uint64_t hz = 1000; hz <= 100000000000ULL; hz = hz * 7 + 3) {
        struct clock_scale s = scale(hz, NS_PER_SEC);
        assert_true(s.shift <= 32);
        if (hz <= 2 * NS_PER_SEC)
            assert_true(s.mult >= (1u << 31));
    }
    (void)state;
}

static void test_monotonic(void **state)
{
    struct clock_scale s = scale(2893400000ULL, NS_PER_SEC);
    uint64_t prev = 0;

    (void)state;
    for (uint64_t n = 0; n < 100000; n++) {
        uint64_t ns = clock_scale_apply(&s, n * 997);
        assert_true(ns >= prev);
        prev = ns;
    }
}

static void test_saturates(void **state)
{
    struct clock_scale up = scale(1000, NS_PER_SEC);

    (void)state;
    assert_int_equal(clock_scale_apply(&up, UINT64_MAX), UINT64_MAX);
    assert_int_equal(clock_scale_apply(&up, UINT64_MAX / 1000000 + 1), UINT64_MAX);
}

static void test_rejects_what_cannot_scale(void **state)
{
    struct clock_scale s = {.mult = 7, .shift = 3};

    (void)state;
    assert_false(clock_scale_init(&s, 0, NS_PER_SEC));
    assert_false(clock_scale_init(&s, 1, 1ULL << 32)); /* a ratio of 2^32 */
    assert_int_equal(s.mult, 7);
    assert_int_equal(s.shift, 3);
    assert_true(clock_scale_init(&s, 1, NS_PER_SEC)); /* 1 Hz to ns still fits */
    assert_int_equal(clock_scale_apply(&s, 3), 3 * NS_PER_SEC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_ghz_is_exact),
        cmocka_unit_test(test_tsc_to_ns),
        cmocka_unit_test(test_long_uptime_does_not_overflow),
        cmocka_unit_test(test_ns_to_timer_ticks),
        cmocka_unit_test(test_mult_fits_and_is_precise),
        cmocka_unit_test(test_monotonic),
        cmocka_unit_test(test_saturates),
        cmocka_unit_test(test_rejects_what_cannot_scale),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
