/* kernel/cmdline.c: every option type, the exact text of every problem
 * line, the checks between options, and the declaration macros' "options"
 * and "option_checks" sections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/cmdline.h"

#define MAX_LINES 8

/* What the reporter was handed: a copy of each line. */
static struct {
    char lines[MAX_LINES][CMDLINE_LINE_MAX + 64];
    size_t count;
} reported;

static void record_line(const char *line, void *ctx)
{
    assert_ptr_equal(ctx, &reported);
    assert_true(strlen(line) < CMDLINE_LINE_MAX);
    assert_null(strchr(line, '\n'));
    if (reported.count < MAX_LINES)
        snprintf(reported.lines[reported.count], sizeof(reported.lines[0]), "%s", line);
    reported.count++;
}

static bool patch;
static uint64_t pages;
static int fault;
static char name[8];
static uint64_t big;
static uint64_t secs;
static char benches[24];

static const char *const fault_words[] = {"none", "pf", "ud", NULL};

/* bench=-like: a few names, one a prefix of another. */
static void bench_words(option_word_fn fn, void *ctx)
{
    static const char *const words[] = {"all", "irq", "irq_off", "calls"};

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        fn(words[i], ctx);
}

static const struct option test_options[] = {
    {.key = "pv.patch", .type = OPT_BOOL, .value = &patch, .help = "patch"},
    {.key = "wl.pages",
     .type = OPT_UINT,
     .value = &pages,
     .min = 1,
     .max = 1048576,
     .size_suffix = true},
    {.key = "fault", .type = OPT_ENUM, .value = &fault, .choices = fault_words},
    {.key = "wl.name", .type = OPT_STRING, .value = name, .size = sizeof(name)},
    {.key = "big",
     .type = OPT_UINT,
     .value = &big,
     .min = 0,
     .max = UINT64_MAX,
     .size_suffix = true},
    {.key = "secs", .type = OPT_UINT, .value = &secs, .min = 1, .max = 86400},
    {.key = "bench",
     .type = OPT_LIST,
     .value = benches,
     .size = sizeof(benches),
     .words = bench_words},
};
#define NOPTIONS (sizeof(test_options) / sizeof(test_options[0]))
#define KNOWN " (known: pv.patch, wl.pages, fault, wl.name, big, secs, bench)"
#define BENCH_KNOWN " (known: all, irq, irq_off, calls)"

static int reset(void **state)
{
    (void)state;
    patch = false;
    pages = 16;
    fault = 0;
    strcpy(name, "dflt");
    big = 7;
    secs = 30;
    strcpy(benches, "calls");
    memset(&reported, 0, sizeof(reported));
    return 0;
}

static bool str_has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int parse(const char *cmdline)
{
    return cmdline_parse(cmdline, test_options, NOPTIONS, ~0u, record_line, &reported);
}

/* One problem, reported with exactly this line. */
static void expect_one_problem(const char *cmdline, const char *line)
{
    reset(NULL);
    assert_int_equal(parse(cmdline), 1);
    assert_int_equal(reported.count, 1);
    assert_string_equal(reported.lines[0], line);
}

static void expect_defaults(void)
{
    assert_false(patch);
    assert_int_equal(pages, 16);
    assert_int_equal(fault, 0);
    assert_string_equal(name, "dflt");
    assert_int_equal(big, 7);
    assert_int_equal(secs, 30);
    assert_string_equal(benches, "calls");
}

static void test_empty_and_blank(void **state)
{
    (void)state;
    assert_int_equal(parse(""), 0);
    assert_int_equal(parse(" \t \n  "), 0);
    assert_int_equal(parse(NULL), 0);
    assert_int_equal(reported.count, 0);
    expect_defaults();
}

static void test_bool(void **state)
{
    static const char *const yes[] = {"pv.patch", "pv.patch=on", "pv.patch=1", "pv.patch=yes",
                                      "pv.patch=true"};
    static const char *const no[] = {"pv.patch=off", "pv.patch=0", "pv.patch=no", "pv.patch=false"};

    (void)state;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        patch = false;
        assert_int_equal(parse(yes[i]), 0);
        assert_true(patch);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        patch = true;
        assert_int_equal(parse(no[i]), 0);
        assert_false(patch);
    }
    assert_int_equal(reported.count, 0);
}

static void test_bool_bad_values(void **state)
{
    (void)state;
    expect_one_problem("pv.patch=maybe", "cmdline: bad value 'maybe' for pv.patch "
                                         "(accepted: on|off)");
    assert_false(patch);
    expect_one_problem("pv.patch=", "cmdline: bad value '' for pv.patch "
                                    "(accepted: on|off)");
    expect_one_problem("pv.patch=onn", "cmdline: bad value 'onn' for pv.patch "
                                       "(accepted: on|off)");
    assert_false(patch);
}

static void expect_uint(const char *cmdline, uint64_t *var, uint64_t want)
{
    reset(NULL);
    assert_int_equal(parse(cmdline), 0);
    assert_int_equal(*var, want);
}

static void test_uint(void **state)
{
    (void)state;
    expect_uint("wl.pages=100", &pages, 100);
    expect_uint("wl.pages=1", &pages, 1);
    expect_uint("wl.pages=1048576", &pages, 1048576);
    expect_uint("wl.pages=0x10", &pages, 16);
    expect_uint("wl.pages=0X1f", &pages, 31);
    expect_uint("wl.pages=0xAbC", &pages, 0xabc);
    expect_uint("wl.pages=4K", &pages, 4096);
    expect_uint("wl.pages=1M", &pages, 1048576);
    expect_uint("wl.pages=0x2k", &pages, 2048);
    expect_uint("wl.pages=007", &pages, 7);
    expect_uint("big=0", &big, 0);
    expect_uint("big=2G", &big, 2ULL << 30);
    expect_uint("big=18446744073709551615", &big, UINT64_MAX);
    expect_uint("big=0xffffffffffffffff", &big, UINT64_MAX);
    expect_uint("big=17179869183G", &big, 17179869183ULL << 30);
    expect_uint("secs=86400", &secs, 86400);
    expect_uint("secs=0x10", &secs, 16);
}

static void expect_bad_pages(const char *value)
{
    char cmdline[64], line[256];

    snprintf(cmdline, sizeof(cmdline), "wl.pages=%s", value);
    snprintf(line, sizeof(line), "cmdline: bad value '%s' for wl.pages (accepted: 1..1048576)",
             value);
    expect_one_problem(cmdline, line);
    assert_int_equal(pages, 16);
}

static void test_uint_bad_values(void **state)
{
    static const char *const bad[] = {"abc", "",   "0",   "1048577", "2G",  "-1",    "+1", "12KB",
                                      "K",   "0x", "0xg", "1.5",     "1e3", "0b101", "1T"};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_bad_pages(bad[i]);
}

/* A number that is not a size takes no K, M or G: secs=1k is refused,
 * not read as 1024. */
static void test_suffix_only_on_sizes(void **state)
{
    static const char *const bad[] = {"1k", "1K", "2M", "1G", "0x1k", "1m", "86400K"};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char cmdline[64], line[256];

        snprintf(cmdline, sizeof(cmdline), "secs=%s", bad[i]);
        snprintf(line, sizeof(line), "cmdline: bad value '%s' for secs (accepted: 1..86400)",
                 bad[i]);
        expect_one_problem(cmdline, line);
        assert_int_equal(secs, 30);
    }
    expect_uint("wl.pages=1k", &pages, 1024);
}

static void test_uint_overflow(void **state)
{
    static const char *const tail = " for big (accepted: 0..18446744073709551615)";
    static const char *const bad[] = {"18446744073709551616", "99999999999999999999999",
                                      "0x10000000000000000", "17179869184G", "18014398509481984K"};
    char line[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char cmdline[64];

        snprintf(cmdline, sizeof(cmdline), "big=%s", bad[i]);
        snprintf(line, sizeof(line), "cmdline: bad value '%s'%s", bad[i], tail);
        expect_one_problem(cmdline, line);
        assert_int_equal(big, 7);
    }
}

static void test_enum(void **state)
{
    (void)state;
    assert_int_equal(parse("fault=pf"), 0);
    assert_int_equal(fault, 1);
    assert_int_equal(parse("fault=ud"), 0);
    assert_int_equal(fault, 2);
    assert_int_equal(parse("fault=none"), 0);
    assert_int_equal(fault, 0);
}

static void test_enum_bad_values(void **state)
{
    static const char *const bad[] = {"PF", "p", "pfx", "", "nonee"};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char cmdline[64], line[256];

        snprintf(cmdline, sizeof(cmdline), "fault=%s", bad[i]);
        snprintf(line, sizeof(line), "cmdline: bad value '%s' for fault (accepted: none|pf|ud)",
                 bad[i]);
        expect_one_problem(cmdline, line);
        assert_int_equal(fault, 0);
    }
}

static void test_string(void **state)
{
    (void)state;
    assert_int_equal(parse("wl.name=abc"), 0);
    assert_string_equal(name, "abc");
    assert_int_equal(parse("wl.name=abcdefg"), 0); /* 7 chars: exactly fits */
    assert_string_equal(name, "abcdefg");
    assert_int_equal(parse("wl.name=a=b"), 0); /* only the first '=' splits */
    assert_string_equal(name, "a=b");
    assert_int_equal(parse("wl.name="), 0);
    assert_string_equal(name, "");
}

static void test_string_too_long(void **state)
{
    (void)state;
    expect_one_problem("wl.name=abcdefgh", "cmdline: bad value 'abcdefgh' for wl.name "
                                           "(accepted: text up to 7 chars)");
    assert_string_equal(name, "dflt");
}

/* Names, in any order and repeated; a prefix of a name is not the name. */
static void test_list(void **state)
{
    (void)state;
    assert_int_equal(parse("bench=irq"), 0);
    assert_string_equal(benches, "irq");
    assert_int_equal(parse("bench=irq_off,all,irq,irq"), 0);
    assert_string_equal(benches, "irq_off,all,irq,irq");
    assert_int_equal(parse("bench=irq_off,calls,irq,calls"), 0); /* 23 chars: exactly fits */
    assert_string_equal(benches, "irq_off,calls,irq,calls");
    assert_int_equal(reported.count, 0);
}

/* Every unknown word gets its line, and the list is not stored. */
static void test_list_unknown_words(void **state)
{
    (void)state;
    expect_one_problem("bench=irq,bogus", "cmdline: unknown name 'bogus' in bench" BENCH_KNOWN);
    assert_string_equal(benches, "calls");
    reset(NULL);
    assert_int_equal(parse("bench=ir,irq,IRQ,irq_of"), 3);
    assert_string_equal(reported.lines[0], "cmdline: unknown name 'ir' in bench" BENCH_KNOWN);
    assert_string_equal(reported.lines[1], "cmdline: unknown name 'IRQ' in bench" BENCH_KNOWN);
    assert_string_equal(reported.lines[2], "cmdline: unknown name 'irq_of' in bench" BENCH_KNOWN);
    assert_string_equal(benches, "calls");
}

/* An empty list, or an empty word in one, names nothing either. */
static void test_list_empty_words(void **state)
{
    (void)state;
    expect_one_problem("bench=", "cmdline: unknown name '' in bench" BENCH_KNOWN);
    expect_one_problem("bench=irq,", "cmdline: unknown name '' in bench" BENCH_KNOWN);
    reset(NULL);
    assert_int_equal(parse("bench=irq,,calls,"), 2);
    assert_string_equal(benches, "calls");
}

/* Too long is one problem, however many words are unknown. */
static void test_list_too_long(void **state)
{
    (void)state;
    expect_one_problem("bench=irq,irq,irq,irq,irq,irq,x",
                       "cmdline: bad value 'irq,irq,irq,irq,irq,irq,x' for bench (accepted: up "
                       "to 23 chars of NAME,NAME... from all, irq, irq_off, calls)");
    assert_string_equal(benches, "calls");
}

/* An unknown word is shown escaped, as a value is. */
static void test_list_word_shown_escaped(void **state)
{
    (void)state;
    expect_one_problem("bench=a\x1b'", "cmdline: unknown name 'a\\x1b\\'' in bench" BENCH_KNOWN);
}

static void test_needs_value(void **state)
{
    (void)state;
    expect_one_problem("wl.pages", "cmdline: option wl.pages needs a value "
                                   "(accepted: 1..1048576)");
    expect_one_problem("fault", "cmdline: option fault needs a value "
                                "(accepted: none|pf|ud)");
    expect_one_problem("wl.name", "cmdline: option wl.name needs a value "
                                  "(accepted: text up to 7 chars)");
    expect_one_problem("bench", "cmdline: option bench needs a value (accepted: up to 23 chars "
                                "of NAME,NAME... from all, irq, irq_off, calls)");
    expect_defaults();
}

static void test_unknown_option(void **state)
{
    static const char *const known = KNOWN;
    char line[256];

    (void)state;
    snprintf(line, sizeof(line), "cmdline: unknown option 'bogus'%s", known);
    expect_one_problem("bogus=1", line);
    expect_one_problem("bogus", line);
    snprintf(line, sizeof(line), "cmdline: unknown option 'wl'%s", known);
    expect_one_problem("wl=3", line); /* a prefix of a key is not the key */
    snprintf(line, sizeof(line), "cmdline: unknown option 'PV.PATCH'%s", known);
    expect_one_problem("PV.PATCH", line);
    snprintf(line, sizeof(line), "cmdline: unknown option ''%s", known);
    expect_one_problem("=5", line);
    expect_defaults();
}

static void test_unknown_with_no_options(void **state)
{
    (void)state;
    assert_int_equal(cmdline_parse("x", NULL, 0, ~0u, record_line, &reported), 1);
    assert_string_equal(reported.lines[0], "cmdline: unknown option 'x' (known: none)");
}

static void test_many_tokens_and_whitespace(void **state)
{
    (void)state;
    assert_int_equal(parse("  pv.patch\twl.pages=32 \t\t fault=ud  wl.name=x\nbig=0x10  "), 0);
    assert_true(patch);
    assert_int_equal(pages, 32);
    assert_int_equal(fault, 2);
    assert_string_equal(name, "x");
    assert_int_equal(big, 16);
    assert_int_equal(reported.count, 0);
}

/* A problem spoils only its own token; the lines come in order. */
static void test_problems_counted_and_others_applied(void **state)
{
    (void)state;
    assert_int_equal(parse("wl.pages=0 pv.patch nope fault=zz wl.name=ok"), 3);
    assert_int_equal(reported.count, 3);
    assert_true(str_has_prefix(reported.lines[0], "cmdline: bad value '0' for wl.pages"));
    assert_true(str_has_prefix(reported.lines[1], "cmdline: unknown option 'nope'"));
    assert_true(str_has_prefix(reported.lines[2], "cmdline: bad value 'zz' for fault"));
    assert_true(patch);
    assert_string_equal(name, "ok");
    assert_int_equal(pages, 16);
    assert_int_equal(fault, 0);
}

static void test_last_one_wins(void **state)
{
    (void)state;
    assert_int_equal(parse("wl.pages=5 fault=pf wl.pages=6 fault=ud"), 0);
    assert_int_equal(pages, 6);
    assert_int_equal(fault, 2);
    assert_int_equal(parse("pv.patch pv.patch=off"), 0);
    assert_false(patch);
    /* A bad repeat keeps the value the earlier one set. */
    assert_int_equal(parse("wl.pages=5 wl.pages=x"), 1);
    assert_int_equal(pages, 5);
}

/* A '/' word is an option like any other: only the multiboot2 entry drops
 * GRUB's file name, before the parser sees the line. */
static void test_paths_are_options(void **state)
{
    static const char *const known = KNOWN;
    char line[256];

    (void)state;
    snprintf(line, sizeof(line), "cmdline: unknown option '/boot/x'%s", known);
    expect_one_problem("/boot/x pv.patch", line);
    assert_true(patch);
    snprintf(line, sizeof(line), "cmdline: unknown option '/a'%s", known);
    expect_one_problem("/a=1", line);
}

/* Control bytes and quotes never reach the terminal raw. */
static void test_shown_escaped(void **state)
{
    char out[64];

    (void)state;
    assert_int_equal(cmdline_escape(out, sizeof(out), "\x1b[2Jfoo=1", 9), 12);
    assert_string_equal(out, "\\x1b[2Jfoo=1");
    cmdline_escape(out, sizeof(out), "a'b\"c\\d", 7);
    assert_string_equal(out, "a\\'b\\\"c\\\\d");
    cmdline_escape(out, sizeof(out), "\xff\x7f", 2);
    assert_string_equal(out, "\\xff\\x7f");
    /* Whole escapes only: no room for "\x1b" after "ab" in 6 bytes. */
    assert_int_equal(cmdline_escape(out, 6, "ab\x1b", 3), 2);
    assert_string_equal(out, "ab");
    expect_one_problem("k\x1b=1", "cmdline: unknown option 'k\\x1b'" KNOWN);
}

/* A long unknown key is cut short, never the list of known options. */
static void test_long_key_keeps_known_list(void **state)
{
    char cmd[160];

    (void)state;
    memset(cmd, 'x', 100);
    strcpy(cmd + 100, "=1");
    assert_int_equal(parse(cmd), 1);
    assert_non_null(strstr(reported.lines[0], "...'" KNOWN));
}

static char long_text[5000];

static const char *repeat_char(char c, size_t n)
{
    memset(long_text, c, n);
    long_text[n] = '\0';
    return long_text;
}

/* A long key or value is shown cut to 61 characters and "...". */
static void test_long_unknown_key(void **state)
{
    char cmdline[5100], line[256];

    (void)state;
    snprintf(cmdline, sizeof(cmdline), "%s=1 pv.patch", repeat_char('k', 4000));
    snprintf(line, sizeof(line), "cmdline: unknown option '%s...'" KNOWN, repeat_char('k', 61));
    assert_int_equal(parse(cmdline), 1);
    assert_string_equal(reported.lines[0], line);
    assert_true(patch);
}

static void test_long_values(void **state)
{
    char cmdline[5100], line[256];

    (void)state;
    snprintf(cmdline, sizeof(cmdline), "big=%s", repeat_char('1', 4000));
    snprintf(line, sizeof(line),
             "cmdline: bad value '%s...' for big (accepted: 0..18446744073709551615)",
             repeat_char('1', 61));
    expect_one_problem(cmdline, line);
    assert_int_equal(big, 7);

    snprintf(cmdline, sizeof(cmdline), "wl.name=%s", repeat_char('n', 4000));
    expect_one_problem(cmdline, "cmdline: bad value 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
                                "nnnnnnnnnnnnnnnnnn...' for wl.name (accepted: text up to 7 "
                                "chars)");
    assert_string_equal(name, "dflt");
}

/* A 64-character value is still shown whole. */
static void test_value_at_display_limit(void **state)
{
    char cmdline[100], line[256];

    (void)state;
    snprintf(cmdline, sizeof(cmdline), "fault=%s", repeat_char('f', 64));
    snprintf(line, sizeof(line), "cmdline: bad value '%s' for fault (accepted: none|pf|ud)",
             repeat_char('f', 64));
    expect_one_problem(cmdline, line);
}

/* Too many keys to list: the line stops at CMDLINE_LINE_MAX - 1
 * characters and says so. */
static void test_overlong_line_is_cut(void **state)
{
    static char keys[60][40];
    static bool flags[60];
    struct option many[60];

    (void)state;
    for (size_t i = 0; i < 60; i++) {
        snprintf(keys[i], sizeof(keys[i]), "subsystem%02zu.some_rather_long_name", i);
        many[i] = (struct option){.key = keys[i], .type = OPT_BOOL, .value = &flags[i]};
    }
    assert_int_equal(cmdline_parse("nope", many, 60, ~0u, record_line, &reported), 1);
    assert_int_equal(strlen(reported.lines[0]), CMDLINE_LINE_MAX - 1);
    assert_true(str_has_prefix(reported.lines[0], "cmdline: unknown option 'nope' (known: "
                                                  "subsystem00.some_rather_long_name, "));
    assert_string_equal(reported.lines[0] + CMDLINE_LINE_MAX - 4, "...");
}

static const char *check_nothing(void)
{
    return NULL;
}

static const char *check_pages_need_patch(void)
{
    return pages > 100 && !patch ? "wl.pages= over 100 needs pv.patch" : NULL;
}

static const char *check_always(void)
{
    return "always wrong";
}

/* Checks run in order, each problem a line of its own, counted. */
static void test_checks(void **state)
{
    static const struct option_check checks[] = {
        {check_nothing}, {check_pages_need_patch}, {check_always}};

    (void)state;
    assert_int_equal(cmdline_check(NULL, 0, record_line, &reported), 0);
    assert_int_equal(cmdline_check(checks, 1, record_line, &reported), 0);
    assert_int_equal(parse("wl.pages=200"), 0);
    assert_int_equal(cmdline_check(checks, 3, record_line, &reported), 2);
    assert_int_equal(reported.count, 2);
    assert_string_equal(reported.lines[0], "cmdline: wl.pages= over 100 needs pv.patch");
    assert_string_equal(reported.lines[1], "cmdline: always wrong");
    assert_int_equal(parse("pv.patch"), 0);
    assert_int_equal(cmdline_check(checks, 2, record_line, &reported), 0);
}

/* Options declared with the macros, as subsystems do. */
static bool macro_flag;
static uint64_t macro_count = 3;
static const char *const macro_modes[] = {"fast", "slow", NULL};
static int macro_mode;
static uint64_t macro_size;
static char macro_label[16] = "none";
static char macro_list[32];

static const char *slow_needs_flag(void)
{
    return macro_mode == 1 && !macro_flag ? "t.mode=slow needs t.flag" : NULL;
}

OPTION_BOOL(macro_flag, "t.flag", "a test flag");
OPTION_UINT(macro_count, "t.count", 2, 8192, "a test count");
OPTION_SIZE(macro_size, "t.size", 1, 1 << 20, "a test size");
OPTION_ENUM(macro_mode, "t.mode", macro_modes, "a test mode");
OPTION_STRING(macro_label, "t.label", "a test label");
OPTION_LIST(macro_list, "t.list", bench_words, "a test list");
OPTION_CHECK(slow_needs_flag);

static const struct option *section_option(const char *key)
{
    for (const struct option *o = __start_options; o < __stop_options; o++) {
        if (strcmp(o->key, key) == 0)
            return o;
    }
    return NULL;
}

static void test_macros_fill_the_section(void **state)
{
    const struct option *flag = section_option("t.flag"), *count = section_option("t.count");
    const struct option *mode = section_option("t.mode"), *label = section_option("t.label");
    const struct option *list = section_option("t.list"), *size = section_option("t.size");

    (void)state;
    assert_int_equal(__stop_options - __start_options, 6);
    assert_int_equal(__stop_option_checks - __start_option_checks, 1);
    assert_ptr_equal(__start_option_checks[0].check, slow_needs_flag);
    assert_non_null(flag);
    assert_int_equal(flag->type, OPT_BOOL);
    assert_ptr_equal(flag->value, &macro_flag);
    assert_string_equal(flag->help, "a test flag");
    assert_non_null(count);
    assert_int_equal(count->type, OPT_UINT);
    assert_int_equal(count->min, 2);
    assert_int_equal(count->max, 8192);
    assert_false(count->size_suffix);
    assert_non_null(size);
    assert_int_equal(size->type, OPT_UINT);
    assert_ptr_equal(size->value, &macro_size);
    assert_int_equal(size->max, 1 << 20);
    assert_true(size->size_suffix);
    assert_non_null(mode);
    assert_int_equal(mode->type, OPT_ENUM);
    assert_ptr_equal(mode->choices, macro_modes);
    assert_non_null(label);
    assert_int_equal(label->type, OPT_STRING);
    assert_ptr_equal(label->value, macro_label);
    assert_int_equal(label->size, 16);
    assert_non_null(list);
    assert_int_equal(list->type, OPT_LIST);
    assert_ptr_equal(list->value, macro_list);
    assert_int_equal(list->size, 32);
    assert_ptr_equal(list->words, bench_words);
}

static void test_parse_section_options(void **state)
{
    size_t n = (size_t)(__stop_options - __start_options);
    size_t nchecks = (size_t)(__stop_option_checks - __start_option_checks);

    (void)state;
    assert_int_equal(cmdline_parse("t.flag t.count=4096 t.size=4K t.mode=slow t.label=hello "
                                   "t.list=irq,calls",
                                   __start_options, n, ~0u, record_line, &reported),
                     0);
    assert_true(macro_flag);
    assert_int_equal(macro_count, 4096);
    assert_int_equal(macro_size, 4096);
    assert_int_equal(macro_mode, 1);
    assert_string_equal(macro_label, "hello");
    assert_string_equal(macro_list, "irq,calls");
    assert_int_equal(cmdline_check(__start_option_checks, nchecks, record_line, &reported), 0);
    assert_int_equal(cmdline_parse("t.flag=off", __start_options, n, ~0u, record_line, &reported),
                     0);
    assert_int_equal(cmdline_check(__start_option_checks, nchecks, record_line, &reported), 1);
    assert_string_equal(reported.lines[0], "cmdline: t.mode=slow needs t.flag");
    reported.count = 0;
    assert_int_equal(cmdline_parse("t.count=1", __start_options, n, ~0u, record_line, &reported),
                     1);
    assert_string_equal(reported.lines[0],
                        "cmdline: bad value '1' for t.count (accepted: 2..8192)");
    reported.count = 0;
    assert_int_equal(cmdline_parse("t.count=4K", __start_options, n, ~0u, record_line, &reported),
                     1);
    assert_string_equal(reported.lines[0],
                        "cmdline: bad value '4K' for t.count (accepted: 2..8192)");
}

/* An option for one platform only: named elsewhere, it is a problem and
 * keeps its value; where the platform offers what it needs, it is set. */
static void test_option_for_another_platform(void **state)
{
    static int mode;
    static const char *const modes[] = {"pv", "lapic", NULL};
    static const struct option only_pvh[] = {
        {.key = "xen.timer", .type = OPT_ENUM, .value = &mode, .choices = modes, .needs = 4},
    };

    (void)state;
    mode = 0;
    assert_int_equal(cmdline_parse("xen.timer=lapic", only_pvh, 1, 3, record_line, &reported), 1);
    assert_string_equal(reported.lines[0],
                        "cmdline: option xen.timer does not apply to this platform");
    assert_int_equal(mode, 0);
    assert_int_equal(cmdline_parse("xen.timer=lapic", only_pvh, 1, 4, record_line, &reported), 0);
    assert_int_equal(reported.count, 1);
    assert_int_equal(mode, 1);
}

#define TEST(fn) cmocka_unit_test_setup(fn, reset)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_empty_and_blank),
        TEST(test_option_for_another_platform),
        TEST(test_bool),
        TEST(test_bool_bad_values),
        TEST(test_uint),
        TEST(test_uint_bad_values),
        TEST(test_uint_overflow),
        TEST(test_suffix_only_on_sizes),
        TEST(test_enum),
        TEST(test_enum_bad_values),
        TEST(test_string),
        TEST(test_string_too_long),
        TEST(test_list),
        TEST(test_list_unknown_words),
        TEST(test_list_empty_words),
        TEST(test_list_too_long),
        TEST(test_list_word_shown_escaped),
        TEST(test_needs_value),
        TEST(test_unknown_option),
        TEST(test_unknown_with_no_options),
        TEST(test_many_tokens_and_whitespace),
        TEST(test_problems_counted_and_others_applied),
        TEST(test_last_one_wins),
        TEST(test_paths_are_options),
        TEST(test_shown_escaped),
        TEST(test_long_key_keeps_known_list),
        TEST(test_long_unknown_key),
        TEST(test_long_values),
        TEST(test_value_at_display_limit),
        TEST(test_overlong_line_is_cut),
        TEST(test_checks),
        TEST(test_macros_fill_the_section),
        TEST(test_parse_section_options),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
