#include "xen/cpuid_base.h"

#include <xen/arch-x86/cpuid.h>

#define RANGE_STEP 0x100
#define RANGE_LAST 0x4000ff00u /* the ranges Xen may use, as Linux scans them */

/* Xen ABI (public/arch-x86/cpuid.h): the range's first leaf returns the
 * signature in EBX, ECX, EDX and in EAX the last leaf Xen answers. */
uint32_t xen_cpuid_base(xen_cpuid_fn cpuid)
{
    for (uint32_t base = XEN_CPUID_FIRST_LEAF; base <= RANGE_LAST; base += RANGE_STEP) {
        struct cpuid_result r = cpuid(base, 0);

        if (r.ebx == XEN_CPUID_SIGNATURE_EBX && r.ecx == XEN_CPUID_SIGNATURE_ECX &&
            r.edx == XEN_CPUID_SIGNATURE_EDX && r.eax >= base + XEN_CPUID_LEAVES_NEEDED &&
            r.eax < base + RANGE_STEP)
            return base;
    }
    return 0;
}

/* Xen ABI (public/arch-x86/cpuid.h): a leaf past the one base's EAX names
 * is not Xen's to answer; the CPU may return another leaf's registers. */
bool xen_cpuid_domid(xen_cpuid_fn cpuid, uint32_t base, unsigned *domid)
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
