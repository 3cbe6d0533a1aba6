/* What the kernel asks the CPU about itself, as a Xen PV guest. */
#include "xen/hypercall.h"
#include "xen/pv/backend.h"

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

/* Xen ABI: a 64-bit PV kernel cannot write its GS base MSR; SEGBASE_GS_KERNEL
 * sets the base Xen loads whenever this vCPU runs in its kernel. */
void xen_set_percpu_base(uint64_t base)
{
    xen_must(HYPERVISOR_set_segment_base(SEGBASE_GS_KERNEL, base), "set_segment_base");
}
