#include "xen/cpuid_base.h"

#include <xen/arch-x86/cpuid.h>

/* Xen ABI (public/arch-x86/cpuid.h): the range's first leaf returns the
 * signature in EBX, ECX, EDX and in EAX the last leaf Xen answers. */
uint32_t xen_cpuid_base(cpuid_fn cpuid)
{
    const struct cpuid_signature xen = {XEN_CPUID_SIGNATURE_EBX, XEN_CPUID_SIGNATURE_ECX,
                                        XEN_CPUID_SIGNATURE_EDX};

    return cpuid_base_find(cpuid, xen, XEN_CPUID_LEAVES_NEEDED);
}

/* Xen ABI (public/arch-x86/cpuid.h): a leaf past the one base's EAX names
 * is not Xen's to answer; the CPU may return another leaf's registers. */
bool xen_cpuid_domid(cpuid_fn cpuid, uint32_t base, unsigned *domid)
{
    struct cpuid_result r;

    if (cpuid(base, 0).eax < base + XEN_CPUID_HVM_LEAF)
        return false;
    r = cpuid(base + XEN_CPUID_HVM_LEAF, 0);
    if (!(r.eax & XEN_HVM_CPUID_DOMID_PRESENT))
        return false;
    *domid = r.ecx;
    return true;
}
