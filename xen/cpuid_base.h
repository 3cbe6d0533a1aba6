/* Finding Xen's CPUID leaves, where both Xen backends read Xen's own
 * facts (the hypercall MSR, the TSC rate, the domain id). Pure, so the
 * host unit test runs the same scan over a faked CPUID. */
#ifndef XEN_CPUID_BASE_H
#define XEN_CPUID_BASE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/cpuid_base.h"

/* The leaves Xen's signature must offer: up to base + 2, the hypercall MSR. */
#define XEN_CPUID_LEAVES_NEEDED 2

/* The first leaf of Xen's range (arch/x86/cpuid_base.h; Xen ABI: another
 * hypervisor interface, such as Viridian, may hold 0x40000000), or 0 when
 * no range carries "XenVMMXenVMM" with at least the leaves above. */
uint32_t xen_cpuid_base(cpuid_fn cpuid);

/* Xen ABI (public/arch-x86/cpuid.h): leaf base + 4 of Xen's range, the HVM
 * features, whose ECX holds the domain id when its EAX says so. */
#define XEN_CPUID_HVM_LEAF 4

/* The domain id leaf base + 4 gives, into *domid; false when Xen's range
 * at base (from xen_cpuid_base) ends before that leaf or the leaf does not
 * carry the id. */
bool xen_cpuid_domid(cpuid_fn cpuid, uint32_t base, unsigned *domid);

#endif
