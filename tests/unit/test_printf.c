/* kernel/printf.c: exact output of each conversion, flag and width, and
 * snprintf-style truncation. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "kernel/printf.h"

static char buf[512];

/* Checks both the text and the returned length. */
#define EXPECT(expected, ...)                                                                      \
    do {                                                                                           \
        int n_ = ksnprintf(buf, sizeof(buf), __VA_ARGS__);                                         \
        assert_string_equal(buf, expected);                                                        \
        assert_int_equal(n_, strlen(expected));                                                    \
    } while (0)

/* The same literal format through libc and through ours. */
#define SAME_AS_LIBC(...)                                                                          \
    do {                                                                                           \
        char libc_[256];                                                                           \
        int libc_n_ = snprintf(libc_, sizeof(libc_), __VA_ARGS__);                                 \
        int n_ = ksnprintf(buf, sizeof(buf), __VA_ARGS__);                                         \
        assert_string_equal(buf, libc_);                                                           \
        assert_int_equal(n_, libc_n_);                                                             \
    } while (0)

static void test_plain_text_and_percent(void **state)
{
    (void)state;
    EXPECT("", "%s", "");
    EXPECT("hello, world", "hello, world");
    EXPECT("100%", "100%%");
    EXPECT("%%", "%%%%");
}

static void test_signed_decimal(void **state)
{
    (void)state;
    EXPECT("0", "%d", 0);
    EXPECT("42", "%d", 42);
    EXPECT("-42", "%i", -42);
    EXPECT("2147483647", "%d", INT_MAX);
    EXPECT("-2147483648", "%d", INT_MIN);
    EXPECT("-1", "%ld", -1L);
    EXPECT("9223372036854775807", "%ld", (long)INT64_MAX);
    EXPECT("-9223372036854775808", "%ld", (long)INT64_MIN);
    EXPECT("-9223372036854775808", "%lld", LLONG_MIN);
    EXPECT("-9223372036854775808", "%lli", LLONG_MIN);
    EXPECT("-5", "%zd", (ssize_t)-5);
}

static void test_unsigned_decimal(void **state)
{
    (void)state;
    EXPECT("0", "%u", 0u);
    EXPECT("4294967295", "%u", UINT_MAX);
    EXPECT("18446744073709551615", "%lu", (unsigned long)UINT64_MAX);
    EXPECT("18446744073709551615", "%llu", ULLONG_MAX);
    EXPECT("18446744073709551615", "%zu", SIZE_MAX);
    EXPECT("4294967295", "%u", -1); /* an int read as unsigned */
}

static void test_hex(void **state)
{
    (void)state;
    EXPECT("0", "%x", 0u);
    EXPECT("deadbeef", "%x", 0xdeadbeefu);
    EXPECT("DEADBEEF", "%X", 0xdeadbeefu);
    EXPECT("ffffffffffffffff", "%lx", (unsigned long)UINT64_MAX);
    EXPECT("FFFFFFFFFFFFFFFF", "%llX", ULLONG_MAX);
    EXPECT("1000", "%zx", (size_t)4096);
    EXPECT("00000000cafe", "%012lx", 0xcafeUL);
}

/* h and hh narrow the value the way the caller's type would have. */
static void test_short_lengths(void **state)
{
    (void)state;
    EXPECT("44", "%hhd", (signed char)300);
    EXPECT("-1", "%hhd", (signed char)255);
    EXPECT("255", "%hhu", (unsigned char)255);
    EXPECT("4464", "%hd", (short)70000);
    EXPECT("-1", "%hd", (short)0xffff);
    EXPECT("ffff", "%hx", (unsigned short)0xffff);
    EXPECT("ff", "%hhx", (unsigned char)0xff);
}

static void test_width_and_flags(void **state)
{
    (void)state;
    EXPECT("   42", "%5d", 42);
    EXPECT("42   |", "%-5d|", 42);
    EXPECT("00042", "%05d", 42);
    EXPECT("-0042", "%05d", -42);
    EXPECT("  -42", "%5d", -42);
    EXPECT("-42  |", "%-5d|", -42);
    EXPECT("12345", "%2d", 12345); /* a narrow field does not cut */
    EXPECT("-12345", "%03d", -12345);
    EXPECT("00000", "%05u", 0u);
    EXPECT("     0", "%6x", 0u);
    EXPECT("   ab", "%*x", 5, 0xabu);
    EXPECT("ab   |", "%*x|", -5, 0xabu); /* negative '*' width: left-aligned */
    EXPECT("0000000000000000000042", "%022d", 42);
}

static void test_integer_precision(void **state)
{
    (void)state;
    EXPECT("007", "%.3d", 7);
    EXPECT("-007", "%.3d", -7);
    EXPECT("    -007", "%8.3d", -7);
    EXPECT("", "%.0d", 0);
    EXPECT("12345", "%.2d", 12345);
    EXPECT("00ff", "%.*x", 4, 0xffu);
}

static void test_strings(void **state)
{
    (void)state;
    EXPECT("hi", "%s", "hi");
    EXPECT("he", "%.2s", "hello");
    EXPECT("hel", "%.*s", 3, "hello");
    EXPECT("hello", "%.*s", -1, "hello"); /* negative precision: none */
    EXPECT("", "%.0s", "hello");
    EXPECT("    hi", "%6s", "hi");
    EXPECT("hi    |", "%-6s|", "hi");
    EXPECT("hello", "%3s", "hello");
    EXPECT("   he", "%5.2s", "hello");
    EXPECT("he   |", "%-5.2s|", "hello");
    EXPECT("a=1 b=two", "a=%d b=%s", 1, "two");
}

/* With a precision, %s must not read past it: no NUL is needed. */
static void test_string_precision_stops_reading(void **state)
{
    static const char unterminated[3] = {'a', 'b', 'c'};

    (void)state;
    EXPECT("abc", "%.3s", unterminated);
    EXPECT("ab", "%.*s", 2, unterminated);
}

static void test_chars(void **state)
{
    (void)state;
    EXPECT("x", "%c", 'x');
    EXPECT("  x", "%3c", 'x');
    EXPECT("x  |", "%-3c|", 'x');
    EXPECT("[a][b]", "[%c][%c]", 'a', 'b');
}

static void test_nul_char_counts(void **state)
{
    (void)state;
    memset(buf, 'z', sizeof(buf));
    assert_int_equal(ksnprintf(buf, sizeof(buf), "a%cb", 0), 3);
    assert_memory_equal(buf, "a\0b", 4);
}

static void test_pointer(void **state)
{
    (void)state;
    EXPECT("0x0000000000000000", "%p", NULL);
    EXPECT("0x00000000deadbeef", "%p", (void *)0xdeadbeefUL);
    EXPECT("0xffffffffffffffff", "%p", (void *)UINTPTR_MAX);
    EXPECT("0xffff800000001000", "%p", (void *)0xffff800000001000UL);
    EXPECT("  0x0000000000000001", "%20p", (void *)1);
    EXPECT("0x0000000000000001  |", "%-20p|", (void *)1);
    EXPECT("0x0000000000000001", "%5p", (void *)1);
}

static void test_length_mix(void **state)
{
    (void)state;
    EXPECT("1 -2 3 4 5 ff", "%d %ld %llu %zu %u %hhx", 1, -2L, 3ULL, (size_t)4, 5u,
           (unsigned char)0xff);
}

/* gcc warns about what these deliberately pass; the formatter must cope. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-overflow"

static void test_null_string(void **state)
{
    (void)state;
    EXPECT("(null)", "%s", (char *)NULL);
    EXPECT("  (null)", "%8s", (char *)NULL);
    EXPECT("(nu", "%.3s", (char *)NULL);
}

/* As in C: '-' wins over '0', and a precision turns zero padding off. */
static void test_ignored_zero_flag(void **state)
{
    (void)state;
    EXPECT("-42  |", "%-05d|", -42);
    EXPECT("    -007", "%08.3d", -7);
}

/* Shown as written, so a typo is visible in the output, and no argument is
 * consumed by it. */
static void test_unknown_conversion(void **state)
{
    (void)state;
    EXPECT("%q", "%q");
    EXPECT("a%qb", "a%qb");
    EXPECT("%5q", "%5q");
    EXPECT("%-08lq", "%-08lq");
    EXPECT("%q 5", "%q %d", 5);
    EXPECT("%o", "%o", 8);
    EXPECT("abc%", "abc%");
    EXPECT("abc%08l", "abc%08l");
}

#pragma GCC diagnostic pop

static void test_truncation(void **state)
{
    (void)state;
    memset(buf, 'z', sizeof(buf));
    assert_int_equal(ksnprintf(buf, 5, "hello %s", "world"), 11);
    assert_string_equal(buf, "hell");
    assert_int_equal(buf[5], 'z'); /* nothing written past size */

    assert_int_equal(ksnprintf(buf, 6, "hello"), 5); /* exact fit */
    assert_string_equal(buf, "hello");

    assert_int_equal(ksnprintf(buf, 1, "%d", 12345), 5);
    assert_string_equal(buf, "");

    assert_int_equal(ksnprintf(buf, 4, "%-6d|", 7), 7);
    assert_string_equal(buf, "7  ");
}

static void test_size_zero_writes_nothing(void **state)
{
    (void)state;
    memset(buf, 'z', sizeof(buf));
    assert_int_equal(ksnprintf(buf, 0, "hello"), 5);
    assert_int_equal(buf[0], 'z');
    assert_int_equal(ksnprintf(NULL, 0, "%s and %d", "abc", -100), 12);
}

static void test_wide_field_is_truncated(void **state)
{
    char small[16];

    (void)state;
    assert_int_equal(ksnprintf(small, sizeof(small), "%300d", 1), 300);
    assert_string_equal(small, "               ");
}

static int call_kvsnprintf(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int call_kvsnprintf(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(dst, size, fmt, ap);
    va_end(ap);
    return n;
}

static void test_kvsnprintf(void **state)
{
    (void)state;
    assert_int_equal(call_kvsnprintf(buf, sizeof(buf), "%s:%d:%p", "f", 3, NULL), 22);
    assert_string_equal(buf, "f:3:0x0000000000000000");
}

struct collector {
    char text[64];
    size_t len;
};

static void collect(char c, void *ctx)
{
    struct collector *col = ctx;

    col->text[col->len++] = c;
}

static int call_kformat(struct collector *col, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int call_kformat(struct collector *col, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kformat(collect, col, fmt, ap);
    va_end(ap);
    return n;
}

static void test_kformat_counts_what_it_emits(void **state)
{
    struct collector col = {.len = 0};

    (void)state;
    assert_int_equal(call_kformat(&col, "[%4s|%-3d]", "ab", -1), 10);
    assert_int_equal(col.len, 10);
    assert_memory_equal(col.text, "[  ab|-1 ]", 10);
}

/* A sweep of flag and width combinations against the host's printf. */
static void test_matches_libc(void **state)
{
    static const long long values[] = {0, 1, -1, 7, -7, 1234567, -1234567, INT64_MAX, INT64_MIN};

    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        long long v = values[i];

        SAME_AS_LIBC("%lld|%5lld|%-5lld|%05lld|%25lld|%-25lld|%025lld", v, v, v, v, v, v, v);
        SAME_AS_LIBC("%llu|%8llu|%-8llu|%08llu|%.12llu", (unsigned long long)v,
                     (unsigned long long)v, (unsigned long long)v, (unsigned long long)v,
                     (unsigned long long)v);
        SAME_AS_LIBC("%llx|%llX|%10llx|%-10llX|%010llx|%.3llx", (unsigned long long)v,
                     (unsigned long long)v, (unsigned long long)v, (unsigned long long)v,
                     (unsigned long long)v, (unsigned long long)v);
        SAME_AS_LIBC("%d|%6d|%-6d|%06d|%.4d|%8.4d|%-8.4d", (int)v, (int)v, (int)v, (int)v, (int)v,
                     (int)v, (int)v);
    }
}

/* Whole bytes only: a dump line cut by its buffer ends at a byte. */
static void test_bytes_cut_at_a_byte(void **state)
{
    const unsigned char b[] = {0x00, 0xab, 0x7f, 0xff};
    char buf[16];

    (void)state;
    ksnprint_bytes(buf, sizeof(buf), b, sizeof(b));
    assert_string_equal(buf, "00 ab 7f ff");
    ksnprint_bytes(buf, 9, b, sizeof(b)); /* room for "00 ab 7f" and its NUL */
    assert_string_equal(buf, "00 ab 7f");
    ksnprint_bytes(buf, 8, b, sizeof(b));
    assert_string_equal(buf, "00 ab");
    ksnprint_bytes(buf, sizeof(buf), b, 0);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_and_percent),
        cmocka_unit_test(test_signed_decimal),
        cmocka_unit_test(test_unsigned_decimal),
        cmocka_unit_test(test_hex),
        cmocka_unit_test(test_short_lengths),
        cmocka_unit_test(test_width_and_flags),
        cmocka_unit_test(test_integer_precision),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_string_precision_stops_reading),
        cmocka_unit_test(test_chars),
        cmocka_unit_test(test_nul_char_counts),
        cmocka_unit_test(test_pointer),
        cmocka_unit_test(test_length_mix),
        cmocka_unit_test(test_null_string),
        cmocka_unit_test(test_ignored_zero_flag),
        cmocka_unit_test(test_unknown_conversion),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_size_zero_writes_nothing),
        cmocka_unit_test(test_wide_field_is_truncated),
        cmocka_unit_test(test_kvsnprintf),
        cmocka_unit_test(test_kformat_counts_what_it_emits),
        cmocka_unit_test(test_matches_libc),
        cmocka_unit_test(test_bytes_cut_at_a_byte),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("printf", tests, NULL, NULL);
}
