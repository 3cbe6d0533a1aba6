/* kernel/pvh_parse.c: what *out holds after each way the start info can
 * fail. xen/pvh/start.c picks dom0's console or a domU's from it, so a
 * failure must leave it defined: not found and zero before the magic is
 * read, the start info's own fields once it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

#include "kernel/pvh_parse.h"

#define BASE 0x100000ull

static union {
    struct hvm_start_info si;
    uint8_t bytes[512];
} window;
static const struct boot_mem mem = {window.bytes, BASE, sizeof(window)};
static struct boot_info bi;
static struct pvh_start out;

static int reset(void **state)
{
    (void)state;
    memset(&window, 0, sizeof(window));
    memset(&bi, 0, sizeof(bi));
    memset(&out, 0xa5, sizeof(out)); /* what an uninitialised local might hold */
    window.si.magic = XEN_HVM_START_MAGIC_VALUE;
    window.si.flags = SIF_INITDOMAIN;
    return 0;
}

static void expect_nothing_found(void)
{
    assert_false(out.found);
    assert_int_equal(out.version, 0);
    assert_int_equal(out.flags, 0);
    assert_int_equal(out.rsdp_paddr, 0);
}

static void test_outside_memory(void **state)
{
    (void)state;
    assert_string_equal(pvh_parse(&mem, BASE - 8, true, &bi, &out), "start info outside memory");
    expect_nothing_found();
}

static void test_bad_magic(void **state)
{
    (void)state;
    window.si.magic ^= 1;
    assert_string_equal(pvh_parse(&mem, BASE, true, &bi, &out), "bad start info magic");
    expect_nothing_found();
}

/* Past the magic the flags are the start info's, even when a later part
 * is unusable: a dom0 stays dom0. */
static void test_found_then_unusable(void **state)
{
    (void)state;
    window.si.version = 1;
    window.si.cmdline_paddr = BASE + sizeof(window);
    assert_string_equal(pvh_parse(&mem, BASE, true, &bi, &out), "command line outside memory");
    assert_true(out.found);
    assert_int_equal(out.flags, SIF_INITDOMAIN);
    assert_int_equal(out.version, 1);
}

/* Xen's PVH dom0 builder writes version 0: usable where the caller finds
 * the memory map elsewhere. */
static void test_version_0(void **state)
{
    (void)state;
    window.si.rsdp_paddr = 0xe0000;
    assert_null(pvh_parse(&mem, BASE, true, &bi, &out));
    assert_true(out.found);
    assert_int_equal(out.version, 0);
    assert_int_equal(out.flags, SIF_INITDOMAIN);
    assert_int_equal(out.rsdp_paddr, 0xe0000);
    assert_string_equal(pvh_parse(&mem, BASE, false, &bi, &out),
                        "start info version 0 has no memory map");
    assert_true(out.found);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_outside_memory, reset),
        cmocka_unit_test_setup(test_bad_magic, reset),
        cmocka_unit_test_setup(test_found_then_unusable, reset),
        cmocka_unit_test_setup(test_version_0, reset),
    };

    return cmocka_run_group_tests_name("pvh_parse", tests, NULL, NULL);
}
