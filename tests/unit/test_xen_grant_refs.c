/* xen/grant_refs.c: the grant reference free list: the reserved entries
 * never handed out, exhaustion, a double free or a stray reference
 * refused without harm, and freed references handed out again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xen/grant_refs.h"

#define NR 64
#define RESERVED 8

static uint32_t next[NR];
static struct grant_refs g;

static int setup(void **state)
{
    (void)state;
    grant_refs_init(&g, next, NR, RESERVED);
    return 0;
}

static void hands_out_every_free_entry_once_then_none(void **state)
{
    uint8_t seen[NR] = {0};

    (void)state;
    assert_int_equal(g.nfree, NR - RESERVED);
    for (int i = 0; i < NR - RESERVED; i++) {
        uint32_t ref = grant_ref_alloc(&g);
        assert_true(ref >= RESERVED && ref < NR);
        assert_int_equal(seen[ref], 0);
        seen[ref] = 1;
    }
    assert_int_equal(g.nfree, 0);
    assert_int_equal(grant_ref_alloc(&g), GRANT_REF_NONE);
    assert_int_equal(grant_ref_alloc(&g), GRANT_REF_NONE);
}

static void refuses_a_double_free(void **state)
{
    uint32_t ref = grant_ref_alloc(&g);

    (void)state;
    assert_true(grant_ref_free(&g, ref));
    assert_false(grant_ref_free(&g, ref));
    assert_int_equal(g.nfree, NR - RESERVED);
}

static void refuses_reserved_unallocated_and_out_of_range(void **state)
{
    (void)state;
    for (uint32_t ref = 0; ref < RESERVED; ref++)
        assert_false(grant_ref_free(&g, ref));
    assert_false(grant_ref_free(&g, RESERVED)); /* free, never allocated */
    assert_false(grant_ref_free(&g, NR));
    assert_false(grant_ref_free(&g, GRANT_REF_NONE));
    assert_int_equal(g.nfree, NR - RESERVED);
}

/* After exhaustion, what is freed is what comes back, and only that. */
static void reuses_what_is_freed(void **state)
{
    uint32_t refs[NR];

    (void)state;
    for (int i = 0; i < NR - RESERVED; i++)
        refs[i] = grant_ref_alloc(&g);
    assert_true(grant_ref_free(&g, refs[10]));
    assert_true(grant_ref_free(&g, refs[3]));
    uint32_t a = grant_ref_alloc(&g), b = grant_ref_alloc(&g);
    assert_true((a == refs[10] && b == refs[3]) || (a == refs[3] && b == refs[10]));
    assert_int_equal(grant_ref_alloc(&g), GRANT_REF_NONE);
}

/* A table smaller than the reserved entries has none to give. */
static void a_table_of_reserved_entries_only_is_empty(void **state)
{
    (void)state;
    grant_refs_init(&g, next, RESERVED - 2, RESERVED);
    assert_int_equal(g.nfree, 0);
    assert_int_equal(grant_ref_alloc(&g), GRANT_REF_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(hands_out_every_free_entry_once_then_none, setup),
        cmocka_unit_test_setup(refuses_a_double_free, setup),
        cmocka_unit_test_setup(refuses_reserved_unallocated_and_out_of_range, setup),
        cmocka_unit_test_setup(reuses_what_is_freed, setup),
        cmocka_unit_test_setup(a_table_of_reserved_entries_only_is_empty, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
