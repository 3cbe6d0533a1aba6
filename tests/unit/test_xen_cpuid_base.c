/* xen/cpuid_base.c: the scan that tells Xen from bare metal at the PVH
 * entry, over a faked CPUID: Xen's signature at the first range, above a
 * Viridian-style range, absent, and ranges that only look like Xen's; then
 * the domain id of leaf base + 4, read only where the range reaches it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <xen/arch-x86/cpuid.h>

#include "xen/cpuid_base.h"

#define RANGES 256

/* The faked leaves: per 0x100 range, its first leaf's registers; and the
 * first range's leaf 4, the HVM features, and how often it was read. */
static struct cpuid_result ranges[RANGES];
static struct cpuid_result hvm_leaf;
static unsigned calls, hvm_reads;

static struct cpuid_result fake_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_result none = {0, 0, 0, 0};

    (void)subleaf;
    calls++;
    if (leaf == 0x40000004u) {
        hvm_reads++;
        return hvm_leaf;
    }
    if (leaf < 0x40000000u || (leaf & 0xff) || (leaf - 0x40000000u) / 0x100 >= RANGES)
        return none;
    return ranges[(leaf - 0x40000000u) / 0x100];
}

/* A signature as the three registers hold it, and the last leaf in EAX. */
static struct cpuid_result signature(const char sig[12], uint32_t last)
{
    struct cpuid_result r = {last, 0, 0, 0};

    memcpy(&r.ebx, sig, 4);
    memcpy(&r.ecx, sig + 4, 4);
    memcpy(&r.edx, sig + 8, 4);
    return r;
}

static int reset(void **state)
{
    (void)state;
    memset(ranges, 0, sizeof(ranges));
    memset(&hvm_leaf, 0, sizeof(hvm_leaf));
    calls = hvm_reads = 0;
    return 0;
}

static void test_xen_at_the_first_range(void **state)
{
    (void)state;
    ranges[0] = signature("XenVMMXenVMM", 0x40000005);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0x40000000);
}

/* Xen ABI: with Viridian on, Hyper-V's leaves take 0x40000000 and Xen's
 * move up a range. */
static void test_xen_above_a_viridian_range(void **state)
{
    (void)state;
    ranges[0] = signature("Microsoft Hv", 0x40000006);
    ranges[1] = signature("XenVMMXenVMM", 0x40000105);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0x40000100);
}

static void test_xen_high_up(void **state)
{
    (void)state;
    ranges[0xff] = signature("XenVMMXenVMM", 0x4000ff02);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0x4000ff00);
}

/* Bare metal, QEMU's TCG or another hypervisor: every range is scanned
 * once, and none is taken. */
static void test_absent(void **state)
{
    (void)state;
    ranges[0] = signature("TCGTCGTCGTCG", 0x40000001);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0);
    assert_int_equal(calls, RANGES);
}

/* A signature whose range lacks the hypercall MSR's leaf, or claims
 * leaves beyond its own range, is not Xen's to use. */
static void test_too_few_or_too_many_leaves(void **state)
{
    (void)state;
    ranges[0] = signature("XenVMMXenVMM", 0x40000001);
    ranges[1] = signature("XenVMMXenVMM", 0x40000200);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0);
    ranges[2] = signature("XenVMMXenVMM", 0x40000202);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0x40000200);
}

/* One wrong register is not the signature. */
static void test_partial_signature(void **state)
{
    (void)state;
    ranges[0] = signature("XenVMMXenVMX", 0x40000005);
    ranges[1] = signature("XenVMMXenVMM", 0x40000105);
    ranges[1].ecx ^= 1;
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0);
}

/* Xen ABI (public/arch-x86/cpuid.h): leaf base + 4's ECX is the domain id
 * when its EAX has XEN_HVM_CPUID_DOMID_PRESENT. */
static void test_domid(void **state)
{
    unsigned domid = 99;

    (void)state;
    ranges[0] = signature("XenVMMXenVMM", 0x40000004);
    hvm_leaf = (struct cpuid_result){XEN_HVM_CPUID_DOMID_PRESENT, 0, 7, 0};
    assert_true(xen_cpuid_domid(fake_cpuid, 0x40000000, &domid));
    assert_int_equal(domid, 7);
    hvm_leaf.ecx = 0;
    assert_true(xen_cpuid_domid(fake_cpuid, 0x40000000, &domid));
    assert_int_equal(domid, 0);
    hvm_leaf.eax = XEN_HVM_CPUID_VCPU_ID_PRESENT; /* an id, but not the domain's */
    domid = 99;
    assert_false(xen_cpuid_domid(fake_cpuid, 0x40000000, &domid));
    assert_int_equal(domid, 99);
}

/* A range that ends before leaf 4 (EAX of base names its last leaf): leaf
 * 4 is not read at all, whatever the CPU would answer there. */
static void test_domid_past_the_last_leaf(void **state)
{
    unsigned domid = 99;

    (void)state;
    ranges[0] = signature("XenVMMXenVMM", 0x40000003);
    hvm_leaf = (struct cpuid_result){XEN_HVM_CPUID_DOMID_PRESENT, 0, 0, 0};
    assert_false(xen_cpuid_domid(fake_cpuid, 0x40000000, &domid));
    assert_int_equal(domid, 99);
    assert_int_equal(hvm_reads, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_xen_at_the_first_range, reset),
        cmocka_unit_test_setup(test_xen_above_a_viridian_range, reset),
        cmocka_unit_test_setup(test_xen_high_up, reset),
        cmocka_unit_test_setup(test_absent, reset),
        cmocka_unit_test_setup(test_too_few_or_too_many_leaves, reset),
        cmocka_unit_test_setup(test_partial_signature, reset),
        cmocka_unit_test_setup(test_domid, reset),
        cmocka_unit_test_setup(test_domid_past_the_last_leaf, reset),
    };

    return cmocka_run_group_tests(tests, 0, 0);
}
