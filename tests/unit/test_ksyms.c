/* kernel/ksyms.c: naming an address from a sorted symbol table, at the
 * edges of symbols, between them, and outside the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/ksyms.h"

/* The table tools/ksyms would generate: sorted, some with no size. */
const struct ksym ksyms_table[] = {
    {0x100000, 0, "multiboot2_entry"},
    {0x101000, 0x40, "first_function"},
    {0x101040, 0x10, "second_function"},
    {0x101100, 0x20, "after_a_gap"},
};
const unsigned long ksyms_count = sizeof(ksyms_table) / sizeof(ksyms_table[0]);

static void assert_named(uint64_t addr, const char *name, uint64_t offset)
{
    uint64_t got = ~0ULL;
    const char *n = ksym_lookup(addr, &got);

    assert_non_null(n);
    assert_string_equal(n, name);
    assert_int_equal(got, offset);
}

static void test_start_middle_and_last_byte(void **state)
{
    (void)state;
    assert_named(0x101000, "first_function", 0);
    assert_named(0x101012, "first_function", 0x12);
    assert_named(0x10103f, "first_function", 0x3f);
    assert_named(0x101040, "second_function", 0);
    assert_named(0x10111f, "after_a_gap", 0x1f);
}

static void test_sizeless_symbol_covers_up_to_the_next(void **state)
{
    (void)state;
    assert_named(0x100000, "multiboot2_entry", 0);
    assert_named(0x100fff, "multiboot2_entry", 0xfff);
}

static void test_gaps_and_outside_are_unnamed(void **state)
{
    uint64_t offset = 0;

    (void)state;
    assert_null(ksym_lookup(0x0fffff, &offset)); /* below the first */
    assert_null(ksym_lookup(0x101050, &offset)); /* past second_function's size */
    assert_null(ksym_lookup(0x101120, &offset)); /* past the last */
    assert_null(ksym_lookup(UINT64_MAX, &offset));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_middle_and_last_byte),
        cmocka_unit_test(test_sizeless_symbol_covers_up_to_the_next),
        cmocka_unit_test(test_gaps_and_outside_are_unnamed),
    };

    setvbuf(stdout, NULL, _IONBF, 0);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
