/* mm/vma.c: the sorted list of memory areas, lookups at their edges,
 * refusing overlaps, and the first-fit search with guard gaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mm/vma.h"

#define P 0x1000ULL /* one page */

static struct vma area(uint64_t start, uint64_t end)
{
    return (struct vma){.start = start, .end = end};
}

static void test_insert_sorted(void **state)
{
    struct vma_list l = {0};
    struct vma a = area(10 * P, 12 * P), b = area(2 * P, 4 * P), c = area(5 * P, 6 * P);

    (void)state;
    assert_true(vma_insert(&l, &a));
    assert_true(vma_insert(&l, &b));
    assert_true(vma_insert(&l, &c));
    assert_ptr_equal(l.head, &b);
    assert_ptr_equal(b.next, &c);
    assert_ptr_equal(c.next, &a);
    assert_null(a.next);
}

static void test_insert_refuses(void **state)
{
    struct vma_list l = {0};
    struct vma a = area(4 * P, 8 * P);
    struct vma overlaps[] = {area(3 * P, 5 * P), area(7 * P, 9 * P), area(5 * P, 6 * P),
                             area(2 * P, 10 * P), area(4 * P, 8 * P)};
    struct vma empty = area(9 * P, 9 * P), unaligned = area(9 * P + 8, 10 * P);
    struct vma touching_below = area(2 * P, 4 * P), touching_above = area(8 * P, 9 * P);

    (void)state;
    assert_true(vma_insert(&l, &a));
    for (size_t i = 0; i < sizeof(overlaps) / sizeof(overlaps[0]); i++)
        assert_false(vma_insert(&l, &overlaps[i]));
    assert_false(vma_insert(&l, &empty));
    assert_false(vma_insert(&l, &unaligned));
    assert_true(vma_insert(&l, &touching_below));
    assert_true(vma_insert(&l, &touching_above));
}

static void test_find_edges(void **state)
{
    struct vma_list l = {0};
    struct vma a = area(4 * P, 8 * P), b = area(8 * P, 9 * P);

    (void)state;
    vma_insert(&l, &a);
    vma_insert(&l, &b);
    assert_null(vma_find(&l, 4 * P - 1));
    assert_ptr_equal(vma_find(&l, 4 * P), &a);
    assert_ptr_equal(vma_find(&l, 8 * P - 1), &a);
    assert_ptr_equal(vma_find(&l, 8 * P), &b); /* end is exclusive */
    assert_null(vma_find(&l, 9 * P));
    assert_ptr_equal(vma_find_range(&l, 5 * P, 8 * P), &a);
    assert_null(vma_find_range(&l, 5 * P, 9 * P)); /* spans two areas */
    assert_null(vma_find_range(&l, 5 * P, 5 * P)); /* empty */
}

static void test_remove(void **state)
{
    struct vma_list l = {0};
    struct vma a = area(1 * P, 2 * P), b = area(3 * P, 4 * P), stranger = area(5 * P, 6 * P);

    (void)state;
    vma_insert(&l, &a);
    vma_insert(&l, &b);
    assert_false(vma_remove(&l, &stranger));
    assert_true(vma_remove(&l, &a));
    assert_ptr_equal(l.head, &b);
    assert_null(vma_find(&l, 1 * P));
    assert_true(vma_remove(&l, &b));
    assert_null(l.head);
}

/* Window [16P, 64P), one guard page between areas. */
static void test_find_free(void **state)
{
    struct vma_list l = {0};
    struct vma a = area(20 * P, 30 * P), b = area(33 * P, 40 * P);

    (void)state;
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 4 * P, P), 16 * P);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 48 * P, P), 16 * P);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 49 * P, P), 0);
    vma_insert(&l, &a);
    vma_insert(&l, &b);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 3 * P, P),
                     16 * P); /* ends a guard below a */
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 4 * P, P),
                     41 * P); /* too big for both gaps */
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 1 * P, 0), 16 * P);
    assert_int_equal(vma_find_free(&l, 21 * P, 64 * P, 1 * P, P),
                     31 * P); /* the gap between a and b */
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 23 * P, P), 41 * P);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 24 * P, P), 0);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 0, P), 0);
}

/* An area above the window must not let a range run past the window. */
static void test_find_free_respects_window(void **state)
{
    struct vma_list l = {0};
    struct vma above = area(100 * P, 101 * P);

    (void)state;
    vma_insert(&l, &above);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 48 * P, P), 16 * P);
    assert_int_equal(vma_find_free(&l, 16 * P, 64 * P, 50 * P, P), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_insert_sorted), cmocka_unit_test(test_insert_refuses),
        cmocka_unit_test(test_find_edges),    cmocka_unit_test(test_remove),
        cmocka_unit_test(test_find_free),     cmocka_unit_test(test_find_free_respects_window),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
