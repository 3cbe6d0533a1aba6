/* kernel/ring_buffer.c: sizes, partial transfers, wrapping around the end
 * of the data and around the counters' own overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/ring_buffer.h"

static uint8_t data[8];

static void test_init(void **state)
{
    struct ring_buffer r;

    (void)state;
    assert_false(ring_init(&r, data, 0));
    assert_false(ring_init(&r, data, 6));
    assert_true(ring_init(&r, data, 8));
    assert_int_equal(ring_used(&r), 0);
    assert_int_equal(ring_free(&r), 8);
}

static void test_partial(void **state)
{
    struct ring_buffer r;
    uint8_t out[16];

    (void)state;
    ring_init(&r, data, sizeof(data));
    assert_int_equal(ring_put(&r, "abcdefghij", 10), 8); /* only what fits */
    assert_int_equal(ring_free(&r), 0);
    assert_int_equal(ring_put(&r, "k", 1), 0);
    assert_int_equal(ring_get(&r, out, 3), 3);
    assert_memory_equal(out, "abc", 3);
    assert_int_equal(ring_get(&r, out, sizeof(out)), 5); /* only what is held */
    assert_memory_equal(out, "defgh", 5);
    assert_int_equal(ring_get(&r, out, 1), 0);
}

/* Every split of a 5-byte transfer across the end of the data. */
static void test_wrap_data(void **state)
{
    struct ring_buffer r;
    uint8_t out[5];

    (void)state;
    ring_init(&r, data, sizeof(data));
    for (int round = 0; round < 20; round++) {
        uint8_t in[5];
        for (int i = 0; i < 5; i++)
            in[i] = (uint8_t)(round * 5 + i);
        assert_int_equal(ring_put(&r, in, 5), 5);
        assert_int_equal(ring_used(&r), 5);
        assert_int_equal(ring_get(&r, out, 5), 5);
        assert_memory_equal(out, in, 5);
    }
}

static void test_wrap_counters(void **state)
{
    struct ring_buffer r;
    uint8_t out[6];

    (void)state;
    ring_init(&r, data, sizeof(data));
    r.head = r.tail = SIZE_MAX - 2; /* three bytes before the counters wrap */
    assert_int_equal(ring_put(&r, "uvwxyz", 6), 6);
    assert_true(r.head < r.tail);
    assert_int_equal(ring_used(&r), 6);
    assert_int_equal(ring_free(&r), 2);
    assert_int_equal(ring_get(&r, out, 6), 6);
    assert_memory_equal(out, "uvwxyz", 6);
    assert_int_equal(ring_used(&r), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_partial),
        cmocka_unit_test(test_wrap_data),
        cmocka_unit_test(test_wrap_counters),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
