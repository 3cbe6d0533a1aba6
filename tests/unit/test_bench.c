/* The benchmark runner's pure parts: per-op figures and their summary
 * (bench/stats.c), the words bench= takes and what they select
 * (bench/select.c) against a small table, the run order (bench/order.c)
 * and the capability check (bench/needs.c). */
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench/bench.h"
#include "bench/order.h"
#include "bench/select.h"
#include "bench/stats.h"

static void test_per_op_in_hundredths(void **state)
{
    (void)state;
    assert_int_equal(bench_per_op(700, 100, 0), 700);   /* 7.00 per op */
    assert_int_equal(bench_per_op(700, 100, 300), 400); /* less 3.00 of loop */
    assert_int_equal(bench_per_op(1, 3, 0), 33);        /* truncated */
}

static void test_per_op_never_below_zero(void **state)
{
    (void)state;
    assert_int_equal(bench_per_op(200, 100, 300), 0);
    assert_int_equal(bench_per_op(5, 0, 0), 0); /* no ops: no figure */
}

static void test_summary_odd_count(void **state)
{
    uint64_t s[] = {50, 10, 40, 20, 30};
    struct bench_summary r = bench_summarise(s, 5);

    (void)state;
    assert_int_equal(r.min, 10);
    assert_int_equal(r.median, 30);
}

static void test_summary_even_count_means_the_middle_two(void **state)
{
    uint64_t s[] = {40, 10, 30, 20};
    struct bench_summary r = bench_summarise(s, 4);

    (void)state;
    assert_int_equal(r.min, 10);
    assert_int_equal(r.median, 25);
}

static void test_summary_of_one(void **state)
{
    uint64_t s[] = {7};
    struct bench_summary r = bench_summarise(s, 1);

    (void)state;
    assert_int_equal(r.min, 7);
    assert_int_equal(r.median, 7);
}

static const struct bench_group irq = {.name = "irq", .title = "irq ops", .rank = 10};
static const struct bench_group calls = {.name = "calls", .title = "calls", .rank = 20};
static const struct bench_group late = {.name = "late", .title = "late", .rank = 20};

static const struct bench table_entries[] = {
    {.name = "cli_sti", .group = &irq},
    {.name = "save_fl", .group = &irq},
    {.name = "call_direct", .group = &calls},
};
static const struct bench *const table[] = {&table_entries[0], &table_entries[1],
                                            &table_entries[2]};
#define COUNT 3

static int select_words(const char *list, bool chosen[COUNT])
{
    memset(chosen, 0, COUNT * sizeof(bool));
    return bench_select(list, table, COUNT, chosen);
}

static void test_select_names_and_groups(void **state)
{
    bool chosen[COUNT];

    (void)state;
    assert_int_equal(select_words("save_fl", chosen), 0);
    assert_false(chosen[0]);
    assert_true(chosen[1]);
    assert_false(chosen[2]);
    assert_int_equal(select_words("calls,cli_sti", chosen), 0);
    assert_true(chosen[0] && !chosen[1] && chosen[2]);
    assert_int_equal(select_words("all", chosen), 0);
    assert_true(chosen[0] && chosen[1] && chosen[2]);
}

/* What names nothing is counted (the parser has refused it before a run
 * gets here); the rest still select. */
static void test_select_counts_what_names_nothing(void **state)
{
    bool chosen[COUNT];

    (void)state;
    assert_int_equal(select_words("bogus,irq", chosen), 1);
    assert_true(chosen[0] && chosen[1] && !chosen[2]);
    assert_int_equal(select_words(",,save_fl,", chosen), 3);
    assert_true(!chosen[0] && chosen[1] && !chosen[2]);
    assert_int_equal(select_words("", chosen), 1);
    assert_int_equal(select_words("save", chosen), 1); /* a prefix is not a name */
    assert_int_equal(select_words("save_fl_x", chosen), 1);
    assert_true(!chosen[0] && !chosen[1] && !chosen[2]);
}

static char words[256];

static void add_word(const char *word, void *ctx)
{
    size_t used = strlen(words);

    assert_ptr_equal(ctx, words);
    snprintf(words + used, sizeof(words) - used, "%s%s", used ? " " : "", word);
}

/* "all", each group once, then each name: the words the parser accepts,
 * and each of them selects something. */
static void test_words_are_what_selects(void **state)
{
    char copy[256], *save = NULL;
    bool chosen[COUNT];

    (void)state;
    words[0] = '\0';
    bench_words(table, COUNT, add_word, words);
    assert_string_equal(words, "all irq calls cli_sti save_fl call_direct");
    snprintf(copy, sizeof(copy), "%s", words);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        assert_int_equal(select_words(w, chosen), 0);
}

static void test_sort_by_group_rank_then_name(void **state)
{
    const struct bench entries[] = {
        {.name = "zz", .group = &late},           {.name = "save_fl", .group = &irq},
        {.name = "call_direct", .group = &calls}, {.name = "cli_sti", .group = &irq},
        {.name = "aa", .group = &late},           {.name = "call_a", .group = &calls},
    };
    const char *want[] = {"cli_sti", "save_fl", "call_a", "call_direct", "aa", "zz"};
    const struct bench *sorted[6];

    (void)state;
    for (size_t i = 0; i < 6; i++)
        sorted[i] = &entries[i];
    bench_sort(sorted, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(sorted[i]->name, want[i]);
}

static void test_unmet_needs_name_where_it_runs(void **state)
{
    (void)state;
    assert_null(bench_unmet(0, 0));
    assert_null(bench_unmet(0, PV_CAP_XEN_PV));
    assert_null(bench_unmet(PV_CAP_XEN_PV, PV_CAP_XEN_PV));
    assert_string_equal(bench_unmet(PV_CAP_XEN_PV, 0), "xen-pv");
    /* Both Xen backends offer hypercalls: the family's name. */
    assert_string_equal(bench_unmet(PV_CAP_XEN, PV_CAP_XEN_PVH), "xen");
    assert_null(bench_unmet(PV_CAP_XEN, PV_CAP_XEN | PV_CAP_XEN_PVH));
    assert_string_equal(bench_unmet(PV_CAP_XEN_PVH, PV_CAP_XEN | PV_CAP_XEN_PV), "xen-pvh");
    assert_string_equal(bench_unmet(1u << 31, PV_CAP_XEN_PV), "another platform");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_op_in_hundredths),
        cmocka_unit_test(test_per_op_never_below_zero),
        cmocka_unit_test(test_summary_odd_count),
        cmocka_unit_test(test_summary_even_count_means_the_middle_two),
        cmocka_unit_test(test_summary_of_one),
        cmocka_unit_test(test_select_names_and_groups),
        cmocka_unit_test(test_select_counts_what_names_nothing),
        cmocka_unit_test(test_words_are_what_selects),
        cmocka_unit_test(test_sort_by_group_rank_then_name),
        cmocka_unit_test(test_unmet_needs_name_where_it_runs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
