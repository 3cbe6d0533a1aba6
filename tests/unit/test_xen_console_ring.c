/* xen/console_ring.c: the producer side of the Xen console ring, with its
 * free-running 32-bit indexes: filling, wrapping at the end of the ring
 * and at 2^32, a full ring, and a ring the other end has broken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "xen/console_ring.h"

#define RING_SIZE sizeof(((struct xencons_interface *)0)->out)

static struct xencons_interface ring;
static char text[3 * RING_SIZE];

static int setup(void **state)
{
    (void)state;
    memset(&ring, 0, sizeof(ring));
    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = (char)('a' + i % 26);
    return 0;
}

static void start_at(XENCONS_RING_IDX idx)
{
    ring.out_cons = ring.out_prod = idx;
}

/* The bytes from index first on, read back the way the console daemon does. */
static void assert_ring_holds(XENCONS_RING_IDX first, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        assert_int_equal(ring.out[MASK_XENCONS_IDX(first + (XENCONS_RING_IDX)i, ring.out)], s[i]);
}

static void test_empty_ring(void **state)
{
    (void)state;
    assert_int_equal(xencons_ring_space(&ring), RING_SIZE);
    assert_int_equal(xencons_ring_write(&ring, "hello", 5), 5);
    assert_int_equal(ring.out_prod, 5);
    assert_int_equal(ring.out_cons, 0);
    assert_memory_equal(ring.out, "hello", 5);
    assert_int_equal(xencons_ring_space(&ring), RING_SIZE - 5);
    assert_int_equal(xencons_ring_write(&ring, "", 0), 0);
    assert_int_equal(ring.out_prod, 5);
}

static void test_wraps_at_ring_end(void **state)
{
    (void)state;
    start_at(RING_SIZE - 8);
    assert_int_equal(xencons_ring_write(&ring, text, 20), 20);
    assert_int_equal(ring.out_prod, RING_SIZE + 12);
    assert_memory_equal(&ring.out[RING_SIZE - 8], text, 8);
    assert_memory_equal(&ring.out[0], text + 8, 12);
}

static void test_wraps_at_index_overflow(void **state)
{
    (void)state;
    start_at(0xfffffff0u);
    assert_int_equal(xencons_ring_write(&ring, text, 40), 40);
    assert_int_equal(ring.out_prod, 0x18);
    assert_ring_holds(0xfffffff0u, text, 40);
    assert_int_equal(xencons_ring_space(&ring), RING_SIZE - 40);
}

static void test_full_ring(void **state)
{
    (void)state;
    assert_int_equal(xencons_ring_write(&ring, text, sizeof(text)), RING_SIZE);
    assert_int_equal(ring.out_prod, RING_SIZE);
    assert_int_equal(xencons_ring_space(&ring), 0);
    assert_int_equal(xencons_ring_write(&ring, "x", 1), 0);
    assert_int_equal(ring.out_prod, RING_SIZE);
    /* The daemon takes 100 bytes: exactly 100 more fit, at the ring start. */
    ring.out_cons += 100;
    assert_int_equal(xencons_ring_write(&ring, "0123456789", 10), 10);
    assert_int_equal(xencons_ring_write(&ring, text, sizeof(text)), 90);
    assert_memory_equal(ring.out, "0123456789", 10);
    assert_int_equal(ring.out_prod - ring.out_cons, RING_SIZE);
}

static void test_full_across_index_overflow(void **state)
{
    (void)state;
    ring.out_cons = 0xfffffc00u;
    ring.out_prod = ring.out_cons + (XENCONS_RING_IDX)RING_SIZE; /* wrapped to 0x400 */
    assert_int_equal(xencons_ring_space(&ring), 0);
    assert_int_equal(xencons_ring_write(&ring, "x", 1), 0);
    ring.out_cons += 1;
    assert_int_equal(xencons_ring_write(&ring, "xy", 2), 1);
    assert_int_equal(ring.out_prod, 0x401);
}

/* More in the ring than it holds: the indexes are garbage; write nothing
 * rather than overwrite what the daemon may still be reading. */
static void test_broken_indexes(void **state)
{
    (void)state;
    ring.out_cons = 10;
    ring.out_prod = 10 + RING_SIZE + 1;
    assert_int_equal(xencons_ring_space(&ring), 0);
    assert_int_equal(xencons_ring_write(&ring, "x", 1), 0);
    assert_int_equal(ring.out_prod, 10 + RING_SIZE + 1);
    ring.out_cons = 5;
    ring.out_prod = 4; /* consumer ahead of producer */
    assert_int_equal(xencons_ring_write(&ring, "x", 1), 0);
}

static void test_touches_only_out(void **state)
{
    struct xencons_interface before;

    (void)state;
    memset(&ring, 0x5a, sizeof(ring));
    start_at(0);
    before = ring;
    assert_int_equal(xencons_ring_write(&ring, text, 7), 7);
    assert_memory_equal(ring.in, before.in, sizeof(ring.in));
    assert_int_equal(ring.in_cons, before.in_cons);
    assert_int_equal(ring.in_prod, before.in_prod);
    assert_memory_equal(ring.out + 7, before.out + 7, RING_SIZE - 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_empty_ring, setup),
        cmocka_unit_test_setup(test_wraps_at_ring_end, setup),
        cmocka_unit_test_setup(test_wraps_at_index_overflow, setup),
        cmocka_unit_test_setup(test_full_ring, setup),
        cmocka_unit_test_setup(test_full_across_index_overflow, setup),
        cmocka_unit_test_setup(test_broken_indexes, setup),
        cmocka_unit_test_setup(test_touches_only_out, setup),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("xen_console_ring", tests, NULL, NULL);
}
