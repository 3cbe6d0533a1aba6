/* kernel/string.c. The unit build defines HOST_TEST, which leaves the
 * standard names to libc; to test the kernel's own versions this file
 * compiles them itself, renamed so they cannot clash with libc's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#define memcpy kernel_memcpy
#define memmove kernel_memmove
#define memset kernel_memset
#define memcmp kernel_memcmp
#define strlen kernel_strlen
#define strcmp kernel_strcmp
#define strncmp kernel_strncmp
#define strchr kernel_strchr
#undef HOST_TEST
#include "kernel/string.c"

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

static void test_memcpy(void **state)
{
    char dst[8] = "xxxxxxx";

    (void)state;
    assert_ptr_equal(memcpy(dst, "abc", 3), dst);
    assert_string_equal(dst, "abcxxxx");
    memcpy(dst, "zz", 0);
    assert_string_equal(dst, "abcxxxx");
}

static void test_memmove_overlapping(void **state)
{
    char up[] = "abcdefgh";
    char down[] = "abcdefgh";

    (void)state;
    assert_ptr_equal(memmove(up + 2, up, 5), up + 2);
    assert_string_equal(up, "ababcdeh");
    assert_ptr_equal(memmove(down, down + 2, 5), down);
    assert_string_equal(down, "cdefgfgh");
}

static void test_memset(void **state)
{
    unsigned char b[6] = {1, 2, 3, 4, 5, 6};
    static const unsigned char want[6] = {1, 0xab, 0xab, 0xab, 5, 6};

    (void)state;
    assert_ptr_equal(memset(b + 1, 0x1ab, 3), b + 1); /* only the low byte counts */
    assert_memory_equal(b, want, sizeof(want));
}

/* The test's own fill, not the one under test. */
static void fill_ref(unsigned char *b, unsigned char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = c;
}

/* Every length up to 80 at every alignment of both ends, and a page and a
 * bit: exactly n bytes change, none on either side. */
static void test_copy_and_fill_sizes(void **state)
{
    static unsigned char src[4200], dst[4200], want[4200];

    (void)state;
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (unsigned char)(i * 7 + 1);
    for (size_t n = 0; n <= 4097; n = n < 80 ? n + 1 : n * 2 + 1) {
        for (size_t da = 0; da < 8; da++) {
            for (size_t sa = 0; sa < 8; sa++) {
                fill_ref(dst, 0xee, sizeof(dst));
                fill_ref(want, 0xee, sizeof(want));
                for (size_t i = 0; i < n; i++)
                    want[da + 8 + i] = src[sa + i];
                assert_ptr_equal(memcpy(dst + da + 8, src + sa, n), dst + da + 8);
                assert_memory_equal(dst, want, sizeof(dst));
            }
            for (size_t i = 0; i < n; i++)
                want[da + 8 + i] = 0x5c;
            assert_ptr_equal(memset(dst + da + 8, 0x15c, n), dst + da + 8);
            assert_memory_equal(dst, want, sizeof(dst));
        }
    }
}

/* memmove's forward path over an overlap wider than a word. */
static void test_memmove_long_overlap(void **state)
{
    unsigned char b[300], want[300];

    (void)state;
    for (int i = 0; i < 300; i++)
        b[i] = want[i] = (unsigned char)i;
    for (int i = 0; i < 250; i++)
        want[i] = (unsigned char)(i + 50);
    memmove(b, b + 50, 250);
    assert_memory_equal(b, want, sizeof(b));
    for (int i = 0; i < 300; i++)
        b[i] = want[i] = (unsigned char)i;
    for (int i = 0; i < 250; i++)
        want[i + 50] = (unsigned char)i;
    memmove(b + 50, b, 250);
    assert_memory_equal(b, want, sizeof(b));
}

static void test_memcmp(void **state)
{
    (void)state;
    assert_int_equal(memcmp("abc", "abc", 3), 0);
    assert_int_equal(sign(memcmp("abc", "abd", 3)), -1);
    assert_int_equal(sign(memcmp("abd", "abc", 3)), 1);
    assert_int_equal(memcmp("abX", "abY", 2), 0);
    assert_int_equal(memcmp("a", "b", 0), 0);
    assert_int_equal(sign(memcmp("\x80", "\x01", 1)), 1); /* bytes are unsigned */
}

static void test_strlen(void **state)
{
    (void)state;
    assert_int_equal(strlen(""), 0);
    assert_int_equal(strlen("a"), 1);
    assert_int_equal(strlen("hello world"), 11);
}

static void test_strcmp(void **state)
{
    (void)state;
    assert_int_equal(strcmp("", ""), 0);
    assert_int_equal(strcmp("abc", "abc"), 0);
    assert_int_equal(sign(strcmp("abc", "abd")), -1);
    assert_int_equal(sign(strcmp("abd", "abc")), 1);
    assert_int_equal(sign(strcmp("ab", "abc")), -1);
    assert_int_equal(sign(strcmp("abc", "ab")), 1);
    assert_int_equal(sign(strcmp("\xff", "a")), 1); /* chars compare as unsigned */
}

static void test_strncmp(void **state)
{
    (void)state;
    assert_int_equal(strncmp("abcX", "abcY", 3), 0);
    assert_int_equal(sign(strncmp("abcX", "abcY", 4)), -1);
    assert_int_equal(strncmp("ab", "ab", 10), 0); /* stops at the terminator */
    assert_int_equal(sign(strncmp("ab", "abc", 10)), -1);
    assert_int_equal(strncmp("x", "y", 0), 0);
}

static void test_strchr(void **state)
{
    static const char s[] = "a=b=c";

    (void)state;
    assert_ptr_equal(strchr(s, '='), s + 1);
    assert_ptr_equal(strchr(s, 'c'), s + 4);
    assert_null(strchr(s, 'z'));
    assert_ptr_equal(strchr(s, '\0'), s + 5);
}

static void test_str_starts_with(void **state)
{
    (void)state;
    assert_true(str_starts_with("pv.patch", "pv."));
    assert_true(str_starts_with("pv.patch", "pv.patch"));
    assert_true(str_starts_with("pv.patch", ""));
    assert_true(str_starts_with("", ""));
    assert_false(str_starts_with("pv", "pv.patch"));
    assert_false(str_starts_with("wl.pages", "pv."));
    assert_false(str_starts_with("", "a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memcpy),
        cmocka_unit_test(test_memmove_overlapping),
        cmocka_unit_test(test_memset),
        cmocka_unit_test(test_memcmp),
        cmocka_unit_test(test_strlen),
        cmocka_unit_test(test_strcmp),
        cmocka_unit_test(test_strncmp),
        cmocka_unit_test(test_strchr),
        cmocka_unit_test(test_str_starts_with),
        cmocka_unit_test(test_copy_and_fill_sizes),
        cmocka_unit_test(test_memmove_long_overlap),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("string", tests, NULL, NULL);
}
