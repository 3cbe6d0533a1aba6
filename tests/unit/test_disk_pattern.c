/* kernel/disk_pattern.c: a block filled checks good, and each way a block
 * can be wrong on the disk (never written, another block's, an old
 * generation, another seed, one flipped bit anywhere) is told apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/disk_pattern.h"

static _Alignas(8) uint8_t a[DISK_BLOCK_SIZE], b[DISK_BLOCK_SIZE];

static void test_filled_block_checks_good(void **state)
{
    (void)state;
    disk_pattern_fill(a, 7, 3, 0x1234);
    assert_int_equal(disk_pattern_check(a, 7, 3, 0x1234), DISK_BLOCK_OK);
    disk_pattern_fill(b, 7, 3, 0x1234);
    assert_memory_equal(a, b, DISK_BLOCK_SIZE); /* the same inputs, the same bytes */
}

static void test_each_wrong_block_is_named(void **state)
{
    (void)state;
    memset(a, 0, sizeof(a));
    assert_int_equal(disk_pattern_check(a, 7, 3, 1), DISK_BLOCK_NO_HEADER);
    disk_pattern_fill(a, 8, 3, 1);
    assert_int_equal(disk_pattern_check(a, 7, 3, 1), DISK_BLOCK_WRONG_NUMBER);
    disk_pattern_fill(a, 7, 2, 1);
    assert_int_equal(disk_pattern_check(a, 7, 3, 1), DISK_BLOCK_WRONG_GENERATION);
    disk_pattern_fill(a, 7, 3, 2);
    assert_int_equal(disk_pattern_check(a, 7, 3, 1), DISK_BLOCK_WRONG_SEED);
    assert_string_equal(disk_block_fault_name(DISK_BLOCK_BAD_CHECKSUM), "bad checksum");
}

/* A bit flipped in the body, in the checksum itself, or two words
 * swapped: the checksum (or the regenerated pattern) catches each. */
static void test_every_bit_counts(void **state)
{
    uint64_t *w = (uint64_t *)a, t;

    (void)state;
    for (size_t byte = offsetof(struct disk_block_header, checksum); byte < DISK_BLOCK_SIZE;
         byte += 61) {
        disk_pattern_fill(a, 1, 1, 5);
        a[byte] ^= 0x10;
        assert_int_equal(disk_pattern_check(a, 1, 1, 5), DISK_BLOCK_BAD_CHECKSUM);
    }
    disk_pattern_fill(a, 1, 1, 5);
    t = w[100], w[100] = w[200], w[200] = t;
    assert_int_equal(disk_pattern_check(a, 1, 1, 5), DISK_BLOCK_BAD_CHECKSUM);
}

/* Neighbouring blocks and generations share no words: a block that the
 * device put one place off would not pass by accident. */
static void test_neighbours_differ(void **state)
{
    size_t same = 0;

    (void)state;
    disk_pattern_fill(a, 10, 1, 0);
    disk_pattern_fill(b, 11, 1, 0);
    for (size_t i = sizeof(struct disk_block_header); i < DISK_BLOCK_SIZE; i += 8)
        same += memcmp(a + i, b + i, 8) == 0;
    assert_int_equal(same, 0);
    disk_pattern_fill(b, 10, 2, 0);
    assert_memory_not_equal(a + 64, b + 64, DISK_BLOCK_SIZE - 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filled_block_checks_good),
        cmocka_unit_test(test_each_wrong_block_is_named),
        cmocka_unit_test(test_every_bit_counts),
        cmocka_unit_test(test_neighbours_differ),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
