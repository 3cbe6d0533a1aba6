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
