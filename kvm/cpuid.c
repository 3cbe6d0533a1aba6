#include "kvm/cpuid.h"

#include <asm/kvm_para.h>

#include "kernel/string.h"

/* KVM ABI (Documentation/virt/kvm/x86/cpuid.rst): KVM_SIGNATURE in EBX,
 * ECX, EDX of the range's first leaf, EAX its last leaf, the features
 * next. A host from before 2.6.35 leaves EAX 0; this kernel does not take
 * its leaves. */
uint32_t kvm_cpuid_base(cpuid_fn cpuid)
{
    struct cpuid_signature kvm;

    _Static_assert(sizeof(kvm) == sizeof(KVM_SIGNATURE) - 1, "three registers of signature");
    memcpy(&kvm, KVM_SIGNATURE, sizeof(kvm));
    return cpuid_base_find(cpuid, kvm, KVM_CPUID_FEATURES - KVM_CPUID_SIGNATURE);
}

/* KVM ABI: the features leaf's EAX. */
uint32_t kvm_cpuid_features(cpuid_fn cpuid, uint32_t base)
{
    return cpuid(base + (KVM_CPUID_FEATURES - KVM_CPUID_SIGNATURE), 0).eax;
}
