/* mm/mm_stats.c: each counter counts into its own field, reset clears them
 * all, and the mmstats: line keeps its exact form and order, which the boot
 * tests and tools/bench parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mm/mm_stats.h"

/* The line as the parsers know it, written out by hand. */
static const char expected_line[] =
    "mmstats: ptes=1 hypercalls=2 multicalls=3 mc_entries_mean=4.67 mc_entries_max=5 "
    "traps_emulated=6 faults=7 tlb_flushes=8 shootdowns=9 shootdown_ipis=10 flush_hypercalls=11";

static void test_format_exact(void **state)
{
    struct mm_stats s = {.ptes = 1,
                         .hypercalls = 2,
                         .multicalls = 3,
                         .mc_entries = 14, /* 14 / 3 = 4.666... */
                         .mc_entries_max = 5,
                         .traps_emulated = 6,
                         .faults = 7,
                         .tlb_flushes = 8,
                         .shootdowns = 9,
                         .shootdown_ipis = 10,
                         .flush_hypercalls = 11};
    char buf[512];

    (void)state;
    assert_int_equal(mm_stats_format(buf, sizeof(buf), &s), (int)strlen(expected_line));
    assert_string_equal(buf, expected_line);
}

static void test_format_no_multicall(void **state)
{
    struct mm_stats s = {0};
    char buf[512];

    (void)state;
    mm_stats_format(buf, sizeof(buf), &s);
    assert_non_null(strstr(buf, " multicalls=0 mc_entries_mean=0.00 mc_entries_max=0 "));
}

/* Each counter mm_stats_add() takes lands in its own field and no other. */
static void test_add_each_counter(void **state)
{
    static const struct {
        enum mm_stat which;
        size_t offset;
    } counters[] = {
        {MM_PTES, offsetof(struct mm_stats, ptes)},
        {MM_HYPERCALLS, offsetof(struct mm_stats, hypercalls)},
        {MM_TRAPS_EMULATED, offsetof(struct mm_stats, traps_emulated)},
        {MM_FAULTS, offsetof(struct mm_stats, faults)},
        {MM_TLB_FLUSHES, offsetof(struct mm_stats, tlb_flushes)},
        {MM_SHOOTDOWNS, offsetof(struct mm_stats, shootdowns)},
        {MM_SHOOTDOWN_IPIS, offsetof(struct mm_stats, shootdown_ipis)},
        {MM_FLUSH_HYPERCALLS, offsetof(struct mm_stats, flush_hypercalls)},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
        struct mm_stats s;
        const uint64_t *field = (const uint64_t *)((const char *)&s + counters[i].offset);

        mm_stats_reset();
        mm_stats_add(counters[i].which, 3);
        mm_stats_add(counters[i].which, 4);
        mm_stats_read(&s);
        assert_int_equal(*field, 7);
        for (const uint64_t *f = (const uint64_t *)&s; f < (const uint64_t *)(&s + 1); f++)
            if (f != field)
                assert_int_equal(*f, 0);
    }
}

static void test_multicall_and_reset(void **state)
{
    struct mm_stats s;

    (void)state;
    mm_stats_reset();
    mm_stats_multicall(16);
    mm_stats_multicall(2);
    mm_stats_multicall(9);
    mm_stats_read(&s);
    assert_int_equal(s.hypercalls, 3);
    assert_int_equal(s.multicalls, 3);
    assert_int_equal(s.mc_entries, 27);
    assert_int_equal(s.mc_entries_max, 16);

    mm_stats_add(MM_PTES, 1);
    mm_stats_reset();
    mm_stats_read(&s);
    for (const uint64_t *f = (const uint64_t *)&s; f < (const uint64_t *)(&s + 1); f++)
        assert_int_equal(*f, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_exact),
        cmocka_unit_test(test_format_no_multicall),
        cmocka_unit_test(test_add_each_counter),
        cmocka_unit_test(test_multicall_and_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
