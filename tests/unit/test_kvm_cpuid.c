/* kvm/cpuid.c over a faked CPUID: KVM's signature found by the scan Xen's
 * leaves are found with (arch/x86/cpuid_base.c), at the first range and
 * above Hyper-V's (KVM with its Hyper-V enlightenments moves up a range);
 * Xen's signature is not KVM's, nor KVM's Xen's; KVM's features leaf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <asm/kvm_para.h>
#include <cmocka.h>

#include "kvm/cpuid.h"
#include "xen/cpuid_base.h"

#define RANGES 256

/* Per 0x100 range, its first and second leaves' registers. */
static struct cpuid_result first[RANGES], second[RANGES];

static struct cpuid_result fake_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_result none = {0, 0, 0, 0};
    uint32_t range = (leaf - 0x40000000u) / 0x100;

    (void)subleaf;
    if (leaf < 0x40000000u || range >= RANGES || (leaf & 0xff) > 1)
        return none;
    return (leaf & 0xff) ? second[range] : first[range];
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
    memset(first, 0, sizeof(first));
    memset(second, 0, sizeof(second));
    return 0;
}

/* KVM ABI: EAX of the first leaf is KVM_CPUID_FEATURES, the last one. */
static void test_kvm_at_the_first_range(void **state)
{
    (void)state;
    first[0] = signature(KVM_SIGNATURE, KVM_CPUID_FEATURES);
    second[0].eax = 1u << KVM_FEATURE_CLOCKSOURCE2 | 1u << KVM_FEATURE_PV_EOI;
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0x40000000);
    assert_int_equal(kvm_cpuid_features(fake_cpuid, 0x40000000),
                     1u << KVM_FEATURE_CLOCKSOURCE2 | 1u << KVM_FEATURE_PV_EOI);
}

static void test_kvm_above_hyper_v(void **state)
{
    (void)state;
    first[0] = signature("Microsoft Hv", 0x4000000b);
    first[1] = signature(KVM_SIGNATURE, 0x40000101);
    second[1].eax = 1u << KVM_FEATURE_STEAL_TIME;
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0x40000100);
    assert_int_equal(kvm_cpuid_features(fake_cpuid, 0x40000100), 1u << KVM_FEATURE_STEAL_TIME);
}

/* Each hypervisor's scan takes its own signature only. */
static void test_xen_is_not_kvm(void **state)
{
    (void)state;
    first[0] = signature("XenVMMXenVMM", 0x40000005);
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0x40000000);
    first[0] = signature(KVM_SIGNATURE, 0x40000005);
    assert_int_equal(xen_cpuid_base(fake_cpuid), 0);
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0x40000000);
}

/* Bare metal, TCG; a signature with one byte off; a range without its
 * features leaf (EAX 0, as hosts before 2.6.35 left it), or claiming
 * leaves past its own range. */
static void test_not_kvm(void **state)
{
    (void)state;
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0);
    first[0] = signature("TCGTCGTCGTCG", 0x40000001);
    first[1] = signature("KVMKVMKVM\0\0\1", 0x40000101);
    first[2] = signature(KVM_SIGNATURE, 0);
    first[3] = signature(KVM_SIGNATURE, 0x40000400);
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0);
    first[4] = signature(KVM_SIGNATURE, 0x40000401);
    assert_int_equal(kvm_cpuid_base(fake_cpuid), 0x40000400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_kvm_at_the_first_range, reset),
        cmocka_unit_test_setup(test_kvm_above_hyper_v, reset),
        cmocka_unit_test_setup(test_xen_is_not_kvm, reset),
        cmocka_unit_test_setup(test_not_kvm, reset),
    };

    return cmocka_run_group_tests(tests, 0, 0);
}
