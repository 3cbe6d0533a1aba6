/* mm/frame_alloc.c: rounding, reservations, overlaps, exhaustion, frees,
 * the 8 GiB limit and low allocations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mm/frame_alloc.h"

#define KIB (1ULL << 10)
#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

static void init_one(uint64_t base, uint64_t len)
{
    const struct mem_range usable = {base, len};

    frame_alloc_init(&usable, 1, NULL, 0);
}

/* Allocates until 0, checking each frame is aligned, within [lo, hi), new,
 * and no longer free. Returns how many it got. */
static uint64_t drain(uint64_t lo, uint64_t hi)
{
    static bool seen[(16 * MIB) / FRAME_SIZE];
    uint64_t n = 0, pa;

    assert_true((hi - lo) / FRAME_SIZE <= sizeof(seen));
    memset(seen, 0, sizeof(seen));
    while ((pa = frame_alloc()) != 0) {
        assert_int_equal(pa % FRAME_SIZE, 0);
        assert_in_range(pa, lo, hi - FRAME_SIZE);
        assert_false(seen[(pa - lo) / FRAME_SIZE]);
        assert_false(frame_is_free(pa));
        seen[(pa - lo) / FRAME_SIZE] = true;
        n++;
    }
    assert_int_equal(frames_free(), 0);
    return n;
}

static void test_simple_range(void **state)
{
    (void)state;
    init_one(1 * MIB, 1 * MIB);
    assert_int_equal(frames_total(), 256);
    assert_int_equal(frames_free(), 256);
    assert_int_equal(frame_bytes_ignored(), 0);
    assert_true(frame_is_free(1 * MIB));
    assert_true(frame_is_free(2 * MIB - FRAME_SIZE));
    assert_false(frame_is_free(2 * MIB));
    assert_false(frame_is_free(1 * MIB - FRAME_SIZE));
}

static void test_exhaustion(void **state)
{
    (void)state;
    init_one(1 * MIB, 1 * MIB);
    assert_int_equal(drain(1 * MIB, 2 * MIB), 256);
    assert_int_equal(frame_alloc(), 0);
    assert_int_equal(frame_alloc_below(UINT64_MAX), 0);
    assert_int_equal(frames_total(), 256);
}

static void test_frame_zero_never_returned(void **state)
{
    (void)state;
    init_one(0, 64 * KIB);
    assert_int_equal(frames_total(), 15);
    assert_false(frame_is_free(0));
    assert_int_equal(drain(0, 64 * KIB), 15);
    assert_false(frame_free(0));
}

static void test_unaligned_rounded_inward(void **state)
{
    (void)state;
    init_one(0x1001, 0x3000); /* [0x1001, 0x4001): whole frames 0x2000 and 0x3000 */
    assert_int_equal(frames_total(), 2);
    assert_false(frame_is_free(0x1000));
    assert_true(frame_is_free(0x2000));
    assert_true(frame_is_free(0x3000));
    assert_false(frame_is_free(0x4000));

    init_one(0x1800, 0x1000); /* no whole frame inside */
    assert_int_equal(frames_total(), 0);
    assert_int_equal(frame_alloc(), 0);
}

static void test_reserved_rounded_outward(void **state)
{
    const struct mem_range usable = {1 * MIB, 1 * MIB};
    const struct mem_range reserved[] = {
        {1 * MIB + 0x10, 0x20},    /* inside the first frame */
        {1 * MIB + 0x1fff, 2},     /* straddles the second and third */
        {1 * MIB + 0x8000, 0x1000} /* exactly one frame */
    };

    (void)state;
    frame_alloc_init(&usable, 1, reserved, 3);
    assert_int_equal(frames_total(), 256 - 4);
    assert_false(frame_is_free(1 * MIB));
    assert_false(frame_is_free(1 * MIB + 0x1000));
    assert_false(frame_is_free(1 * MIB + 0x2000));
    assert_true(frame_is_free(1 * MIB + 0x3000));
    assert_true(frame_is_free(1 * MIB + 0x7000));
    assert_false(frame_is_free(1 * MIB + 0x8000));
    assert_true(frame_is_free(1 * MIB + 0x9000));
}

static void test_reservations_never_handed_out(void **state)
{
    const struct mem_range usable[] = {{0, 4 * MIB}};
    const struct mem_range reserved[] = {{0, 1 * MIB}, {2 * MIB, 512 * KIB}};
    uint64_t pa, n = 0;

    (void)state;
    frame_alloc_init(usable, 1, reserved, 2);
    assert_int_equal(frames_total(), (3 * MIB - 512 * KIB) / FRAME_SIZE);
    while ((pa = frame_alloc()) != 0) {
        assert_true(pa >= 1 * MIB);
        assert_true(pa < 2 * MIB || pa >= 2 * MIB + 512 * KIB);
        n++;
    }
    assert_int_equal(n, frames_total());
}

static void test_overlapping_ranges_in_any_order(void **state)
{
    const struct mem_range usable[] = {
        {3 * MIB / 2, 3 * MIB / 2}, /* [1.5, 3) MiB */
        {1 * MIB, 1 * MIB},         /* [1, 2) MiB */
        {5 * MIB / 4, 4 * KIB},     /* wholly inside the others */
    };

    (void)state;
    frame_alloc_init(usable, 3, NULL, 0);
    assert_int_equal(frames_total(), 512);
    assert_int_equal(drain(1 * MIB, 3 * MIB), 512);
}

static void test_reserved_overlapping_usable_edges(void **state)
{
    const struct mem_range usable[] = {{1 * MIB, 1 * MIB}, {8 * MIB, 1 * MIB}};
    const struct mem_range reserved[] = {{0, 1 * MIB + 4 * KIB},
                                         {2 * MIB - 4 * KIB, 6 * MIB + 8 * KIB}};

    (void)state;
    frame_alloc_init(usable, 2, reserved, 2);
    assert_int_equal(frames_total(), 254 + 255);
    assert_false(frame_is_free(1 * MIB));
    assert_false(frame_is_free(2 * MIB - 4 * KIB));
    assert_false(frame_is_free(8 * MIB));
    assert_true(frame_is_free(8 * MIB + 4 * KIB));
}

static void test_free_and_realloc(void **state)
{
    uint64_t pa;

    (void)state;
    init_one(1 * MIB, 64 * KIB);
    drain(1 * MIB, 1 * MIB + 64 * KIB);
    pa = 1 * MIB + 5 * FRAME_SIZE;
    assert_true(frame_free(pa));
    assert_int_equal(frames_free(), 1);
    assert_true(frame_is_free(pa));
    assert_int_equal(frame_alloc(), pa);
    assert_int_equal(frames_free(), 0);
}

static void test_double_free_rejected(void **state)
{
    uint64_t pa;

    (void)state;
    init_one(1 * MIB, 1 * MIB);
    pa = frame_alloc();
    assert_true(frame_free(pa));
    assert_false(frame_free(pa));
    assert_int_equal(frames_free(), 256);
}

static void test_bad_frees_rejected(void **state)
{
    const struct mem_range usable = {1 * MIB, 1 * MIB};
    const struct mem_range reserved = {1 * MIB, 4 * KIB};
    uint64_t pa;

    (void)state;
    frame_alloc_init(&usable, 1, &reserved, 1);
    pa = frame_alloc();
    assert_int_not_equal(pa, 0);
    assert_false(frame_free(pa + 1));          /* unaligned */
    assert_false(frame_free(0));               /* "no frame" */
    assert_false(frame_free(1 * MIB));         /* reserved */
    assert_false(frame_free(4 * MIB));         /* not RAM */
    assert_false(frame_free(pa + FRAME_SIZE)); /* free, never allocated */
    assert_false(frame_free(FRAME_MAX_PHYS));  /* beyond the bitmap */
    assert_false(frame_free(UINT64_MAX & ~0xfffULL));
    assert_int_equal(frames_free(), 254);
    assert_true(frame_free(pa));
    assert_int_equal(frames_free(), 255);
}

/* Next-fit: a freed frame is not reused until the search wraps around. */
static void test_next_fit(void **state)
{
    uint64_t a, b, c;

    (void)state;
    init_one(1 * MIB, 3 * FRAME_SIZE);
    a = frame_alloc();
    assert_true(frame_free(a));
    b = frame_alloc();
    assert_int_not_equal(b, a);
    c = frame_alloc();
    assert_int_not_equal(c, a);
    assert_int_not_equal(c, b);
    assert_int_equal(frame_alloc(), a); /* wrapped around */
    assert_int_equal(frame_alloc(), 0);
}

static void test_above_8gib_ignored_and_counted(void **state)
{
    const struct mem_range usable[] = {
        {FRAME_MAX_PHYS - 1 * MIB, 2 * MIB}, /* straddles the limit */
        {16 * GIB, 1 * GIB},                 /* wholly above */
    };
    uint64_t pa, n = 0;

    (void)state;
    frame_alloc_init(usable, 2, NULL, 0);
    assert_int_equal(frames_total(), 256);
    assert_int_equal(frame_bytes_ignored(), 1 * MIB + 1 * GIB);
    assert_false(frame_is_free(FRAME_MAX_PHYS));
    while ((pa = frame_alloc()) != 0) {
        assert_true(pa + FRAME_SIZE <= FRAME_MAX_PHYS);
        n++;
    }
    assert_int_equal(n, 256);
}

static void test_huge_and_wrapping_ranges(void **state)
{
    const struct mem_range usable = {1 * MIB, UINT64_MAX};
    const struct mem_range reserved[] = {{UINT64_MAX - 10, 100}, {4 * GIB, UINT64_MAX}};

    (void)state;
    frame_alloc_init(&usable, 1, reserved, 2);
    assert_int_equal(frames_total(), (4 * GIB - 1 * MIB) / FRAME_SIZE);
    assert_int_equal(frame_bytes_ignored(), UINT64_MAX - FRAME_MAX_PHYS);
    assert_true(frame_is_free(4 * GIB - FRAME_SIZE));
    assert_false(frame_is_free(4 * GIB));
}

static void test_alloc_below(void **state)
{
    uint64_t pa, n = 0;

    (void)state;
    init_one(1 * MIB, 15 * MIB);
    assert_int_equal(frame_alloc_below(1 * MIB), 0);
    assert_int_equal(frame_alloc_below(0), 0);
    assert_int_equal(frame_alloc_below(1 * MIB + FRAME_SIZE + 100), 1 * MIB);
    assert_int_equal(frame_alloc_below(1 * MIB + FRAME_SIZE), 0); /* its only frame is taken */
    while ((pa = frame_alloc_below(2 * MIB)) != 0) {
        assert_true(pa >= 1 * MIB && pa + FRAME_SIZE <= 2 * MIB);
        assert_false(frame_is_free(pa));
        n++;
    }
    assert_int_equal(n, 255);
    assert_int_equal(frames_free(), 15 * 256 - 256);
    pa = frame_alloc(); /* the rest are still there */
    assert_true(pa >= 2 * MIB);
    assert_true(frame_free(1 * MIB + 7 * FRAME_SIZE));
    assert_int_equal(frame_alloc_below(2 * MIB), 1 * MIB + 7 * FRAME_SIZE);
}

/* Frames spread over many bitmap words, starting and ending mid-word. */
static void test_word_boundaries(void **state)
{
    (void)state;
    init_one(1 * MIB + 3 * FRAME_SIZE, 200 * FRAME_SIZE);
    assert_int_equal(frames_total(), 200);
    assert_false(frame_is_free(1 * MIB + 2 * FRAME_SIZE));
    assert_true(frame_is_free(1 * MIB + 3 * FRAME_SIZE));
    assert_true(frame_is_free(1 * MIB + 202 * FRAME_SIZE));
    assert_false(frame_is_free(1 * MIB + 203 * FRAME_SIZE));
    assert_int_equal(drain(1 * MIB, 2 * MIB), 200);
}

static void test_reinit_starts_over(void **state)
{
    const struct mem_range usable = {16 * GIB, 1 * GIB};

    (void)state;
    frame_alloc_init(&usable, 1, NULL, 0);
    assert_int_equal(frame_bytes_ignored(), 1 * GIB);
    init_one(1 * MIB, 1 * MIB);
    drain(1 * MIB, 2 * MIB);
    init_one(4 * MIB, 64 * KIB);
    assert_int_equal(frames_total(), 16);
    assert_int_equal(frames_free(), 16);
    assert_int_equal(frame_bytes_ignored(), 0);
    assert_false(frame_is_free(1 * MIB));
    assert_int_equal(frame_alloc(), 4 * MIB);
}

/* A run skips holes too short for it and never spans a gap in RAM; one
 * longer than any run takes nothing. */
static void test_alloc_run(void **state)
{
    const struct mem_range usable[] = {{1 * MIB, 16 * FRAME_SIZE}, {2 * MIB, 64 * FRAME_SIZE}};
    uint64_t hole, pa;

    (void)state;
    frame_alloc_init(usable, 2, NULL, 0);
    hole = frame_alloc(); /* 1 MiB: leaves 15 free frames there */
    assert_int_equal(hole, 1 * MIB);
    assert_int_equal(frame_alloc_run(8), 1 * MIB + FRAME_SIZE);
    pa = frame_alloc_run(16); /* 7 left in the first range: the second's */
    assert_int_equal(pa, 2 * MIB);
    for (uint64_t i = 0; i < 16; i++)
        assert_false(frame_is_free(pa + i * FRAME_SIZE));
    assert_true(frame_is_free(pa + 16 * FRAME_SIZE));
    assert_int_equal(frame_alloc_run(49), 0);
    assert_int_equal(frames_free(), 7 + 48);
    assert_int_equal(frame_alloc_run(48), 2 * MIB + 16 * FRAME_SIZE);
    assert_int_equal(frame_alloc_run(0), 0);
}

static void test_no_memory(void **state)
{
    (void)state;
    frame_alloc_init(NULL, 0, NULL, 0);
    assert_int_equal(frames_total(), 0);
    assert_int_equal(frames_free(), 0);
    assert_int_equal(frame_alloc(), 0);
    assert_int_equal(frame_alloc_below(4 * GIB), 0);
    assert_false(frame_is_free(1 * MIB));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_range),
        cmocka_unit_test(test_exhaustion),
        cmocka_unit_test(test_frame_zero_never_returned),
        cmocka_unit_test(test_unaligned_rounded_inward),
        cmocka_unit_test(test_reserved_rounded_outward),
        cmocka_unit_test(test_reservations_never_handed_out),
        cmocka_unit_test(test_overlapping_ranges_in_any_order),
        cmocka_unit_test(test_reserved_overlapping_usable_edges),
        cmocka_unit_test(test_free_and_realloc),
        cmocka_unit_test(test_double_free_rejected),
        cmocka_unit_test(test_bad_frees_rejected),
        cmocka_unit_test(test_next_fit),
        cmocka_unit_test(test_alloc_run),
        cmocka_unit_test(test_above_8gib_ignored_and_counted),
        cmocka_unit_test(test_huge_and_wrapping_ranges),
        cmocka_unit_test(test_alloc_below),
        cmocka_unit_test(test_word_boundaries),
        cmocka_unit_test(test_reinit_starts_over),
        cmocka_unit_test(test_no_memory),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("frame_alloc", tests, NULL, NULL);
}
