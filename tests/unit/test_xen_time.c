/* xen/system_time.c: Xen's TSC-to-nanoseconds scaling against a plain
 * 128-bit reference, over shifts both ways, extreme multipliers and
 * deltas, and the snapshot arithmetic around it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "xen/system_time.h"

/* The formula of <xen/xen.h>, written the obvious way: shift in 64 bits,
 * multiply in 128, keep bits 32..95. */
static uint64_t reference(uint64_t delta, uint32_t mul, int8_t shift)
{
    if (shift <= -64 || shift >= 64)
        return 0;
    delta = shift < 0 ? delta >> -shift : delta << shift;
    return (uint64_t)(((unsigned __int128)delta * mul) >> 32);
}

/* xorshift64: the same pseudo-random sequence on every run. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void test_known_frequencies(void **state)
{
    (void)state;
    /* 1 GHz: mul 2^31 with shift 1 is one ns per tick. */
    assert_int_equal(xen_tsc_delta_to_ns(1000000000, 1u << 31, 1), 1000000000);
    /* 2 GHz: mul 2^31, shift 0, half a ns per tick. */
    assert_int_equal(xen_tsc_delta_to_ns(2000000000, 1u << 31, 0), 1000000000);
    /* 3 GHz as Xen encodes it: (10^9 << 32) / 3e9 with shift 0. */
    assert_int_equal(xen_tsc_delta_to_ns(3000000000u, 1431655765u, 0), 999999999);
    assert_int_equal(xen_tsc_delta_to_ns(0, 0xffffffffu, 5), 0);
}

static void test_matches_reference_everywhere(void **state)
{
    uint64_t rng = 0x9e3779b97f4a7c15ULL;

    (void)state;
    for (int shift = -40; shift <= 40; shift++) {
        for (int i = 0; i < 5000; i++) {
            uint64_t delta = next_random(&rng);
            uint32_t mul = (uint32_t)next_random(&rng);
            /* Small deltas too: the common case between two timer ticks. */
            if (i % 3 == 0)
                delta >>= next_random(&rng) % 64;
            assert_int_equal(xen_tsc_delta_to_ns(delta, mul, (int8_t)shift),
                             reference(delta, mul, (int8_t)shift));
        }
    }
}

static void test_extremes(void **state)
{
    const uint64_t deltas[] = {0, 1, 0xffffffffULL, 0x100000000ULL, UINT64_MAX, UINT64_MAX / 3};
    const uint32_t muls[] = {0, 1, 0x80000000u, 0xffffffffu};
    const int8_t shifts[] = {-128, -64, -63, -1, 0, 1, 31, 63, 64, 127};

    (void)state;
    for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++)
        for (size_t m = 0; m < sizeof(muls) / sizeof(muls[0]); m++)
            for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++)
                assert_int_equal(xen_tsc_delta_to_ns(deltas[d], muls[m], shifts[s]),
                                 reference(deltas[d], muls[m], shifts[s]));
    /* The largest product: every bit of the 96 in use, none lost. */
    assert_int_equal(xen_tsc_delta_to_ns(UINT64_MAX, 0xffffffffu, 0), 0xfffffffeffffffffULL);
}

static void test_system_time(void **state)
{
    struct vcpu_time_info t = {
        .tsc_timestamp = 1000000,
        .system_time = 5000000000ULL,
        .tsc_to_system_mul = 1u << 31,
        .tsc_shift = 1,
    };

    (void)state;
    assert_int_equal(xen_system_time_ns(&t, 1000000), 5000000000ULL);
    assert_int_equal(xen_system_time_ns(&t, 1000250), 5000000250ULL);
    /* A TSC from before the snapshot: no time passed, never backwards. */
    assert_int_equal(xen_system_time_ns(&t, 999999), 5000000000ULL);
    assert_int_equal(xen_system_time_ns(&t, 0), 5000000000ULL);
}

/* A domU with an emulated TSC, created 551 ms after Xen's last time
 * calibration, as one was seen: its TSC counts from 0 at creation, so the
 * calibration's tsc_timestamp is 551301636 ticks below zero, and a TSC of
 * 262056467 is 813358103 ticks (1 GHz: ns) after it, not before. */
static void test_system_time_negative_timestamp(void **state)
{
    struct vcpu_time_info t = {
        .tsc_timestamp = 18446744073158249980ULL, /* -551301636 */
        .system_time = 3392423350ULL,
        .tsc_to_system_mul = 1u << 31,
        .tsc_shift = 1,
    };

    (void)state;
    assert_int_equal(xen_system_time_ns(&t, 262056467), 3392423350ULL + 813358103);
    assert_int_equal(xen_system_time_ns(&t, 0), 3392423350ULL + 551301636);
    assert_int_equal(xen_system_time_ns(&t, t.tsc_timestamp), 3392423350ULL);
    assert_int_equal(xen_system_time_ns(&t, t.tsc_timestamp - 1), 3392423350ULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_frequencies),
        cmocka_unit_test(test_matches_reference_everywhere),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_system_time),
        cmocka_unit_test(test_system_time_negative_timestamp),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("xen_time", tests, NULL, NULL);
}
