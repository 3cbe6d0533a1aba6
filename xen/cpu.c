/* What the kernel asks the CPU about itself, as a Xen PV guest. */
#include "xen/backend.h"

/* Xen ABI: a PV guest's plain cpuid sees the host CPU; prefixed with
 * XEN_EMULATE_PREFIX, Xen emulates it and applies the domain's policy. */
struct cpuid_result xen_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_result r;

    __asm__ volatile(XEN_CPUID
                     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}

/* Xen ABI: a PV guest cannot read CR2; Xen stores the #PF address in
 * vcpu_info before it delivers the fault. */
uint64_t xen_read_cr2(void)
{
    return xen_vcpu->arch.cr2;
}
