/* What the kernel asks the CPU about itself, as a Xen PV guest. */
#include "xen/backend.h"
#include "xen/hypercall.h"

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

/* Xen keeps only the first vCPUs' vcpu_info in shared_info (XEN_LEGACY_MAX_VCPUS)
 * and at a fixed address; registered inside the per-CPU area instead, any
 * vCPU's sits at the same %gs: offset. Xen copies the current contents over
 * and refuses a block that crosses a page. Call for cpu before it runs. */
void xen_vcpu_info_register(unsigned cpu)
{
    uint64_t maddr = virt_to_maddr(percpu_areas[cpu].platform);
    struct vcpu_register_vcpu_info info = {.mfn = maddr >> 12, .offset = (uint32_t)(maddr & 0xfff)};

    xen_must(HYPERVISOR_vcpu_op(VCPUOP_register_vcpu_info, cpu, &info),
             "VCPUOP_register_vcpu_info");
}
