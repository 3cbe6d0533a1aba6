/* Finding KVM's CPUID leaves, the same scan as Xen's, with KVM's
 * signature; and the paravirtual features KVM offers. Pure, so the host
 * unit test runs it over a faked CPUID. */
#ifndef KVM_CPUID_H
#define KVM_CPUID_H

#include <stdint.h>

#include "arch/x86/cpuid_base.h"

/* The first leaf of KVM's range, or 0 when no range carries KVM's
 * signature with its features leaf. */
uint32_t kvm_cpuid_base(cpuid_fn cpuid);

/* KVM_FEATURE_* bits (<asm/kvm_para.h>) of the range at base. */
uint32_t kvm_cpuid_features(cpuid_fn cpuid, uint32_t base);

#endif
