/* kernel/net/checksum.c against values computed by hand from RFC 1071
 * and from real packets' headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernel/net/checksum.h"

/* RFC 1071 section 3's example: the sum of these words is ddf2. */
static void test_rfc1071_example(void **state)
{
    static const uint8_t b[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};

    (void)state;
    assert_int_equal(csum_add(0, b, sizeof(b)) % 0xffff, 0x2ddf0 % 0xffff);
    assert_int_equal(csum_fold(csum_add(0, b, sizeof(b))), (uint16_t)~0xddf2);
}

/* An IPv4 header (192.168.0.1 -> 192.168.0.199, UDP, total 0x73) whose
 * checksum is 0xb861; summed with it in place, it folds to 0. */
static void test_ipv4_header(void **state)
{
    uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                     0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};

    (void)state;
    assert_int_equal(csum_fold(csum_add(0, h, sizeof(h))), 0xb861);
    h[10] = 0xb8;
    h[11] = 0x61;
    assert_int_equal(csum_fold(csum_add(0, h, sizeof(h))), 0);
    h[15] ^= 1; /* one bit off: no longer 0 */
    assert_int_not_equal(csum_fold(csum_add(0, h, sizeof(h))), 0);
}

/* An odd last byte counts as the high byte of a word padded with zero,
 * and chained pieces sum as the whole does (sums compare modulo 0xffff,
 * where ones' complement sums agree). */
static void test_odd_length_and_chaining(void **state)
{
    static const uint8_t b[] = {0x12, 0x34, 0x56, 0x78, 0x9a};

    (void)state;
    assert_int_equal(csum_add(0, b, 5) % 0xffff, (0x1234 + 0x5678 + 0x9a00) % 0xffff);
    assert_int_equal(csum_add(csum_add(0, b, 2), b + 2, 3) % 0xffff, csum_add(0, b, 5) % 0xffff);
}

/* Sums past 32 bits fold their carries back in. */
static void test_long_runs_of_ones(void **state)
{
    static uint8_t b[70000];

    (void)state;
    for (size_t i = 0; i < sizeof(b); i++)
        b[i] = 0xff;
    assert_int_equal(csum_fold(csum_add(0xffffffffu, b, sizeof(b))), 0);
}

/* The UDP pseudo-header of 10.0.2.2 -> 10.0.2.15, length 13. */
static void test_pseudo_header(void **state)
{
    (void)state;
    assert_int_equal(csum_pseudo(0x0a000202, 0x0a00020f, 17, 13),
                     0x0a00 + 0x0202 + 0x0a00 + 0x020f + 17 + 13);
}

/* Every length and alignment up to 40 bytes against the sum done one
 * big-endian word at a time, as RFC 1071 defines it. */
static void test_every_length_and_alignment(void **state)
{
    uint8_t b[48];

    (void)state;
    for (unsigned i = 0; i < sizeof(b); i++)
        b[i] = (uint8_t)(i * 37 + 201);
    for (unsigned off = 0; off < 8; off++) {
        for (unsigned len = 0; len <= 40; len++) {
            uint32_t want = 0;
            for (unsigned i = 0; i < len; i += 2)
                want += (uint32_t)(b[off + i] << 8 | (i + 1 < len ? b[off + i + 1] : 0));
            assert_int_equal(csum_fold(csum_add(0, b + off, len)), csum_fold(want));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc1071_example),
        cmocka_unit_test(test_ipv4_header),
        cmocka_unit_test(test_odd_length_and_chaining),
        cmocka_unit_test(test_long_runs_of_ones),
        cmocka_unit_test(test_pseudo_header),
        cmocka_unit_test(test_every_length_and_alignment),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
