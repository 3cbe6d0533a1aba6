#include "arch/x86/cpuid_base.h"

#define RANGE_FIRST 0x40000000u
#define RANGE_STEP 0x100
#define RANGE_LAST 0x4000ff00u

uint32_t cpuid_base_find(cpuid_fn cpuid, struct cpuid_signature sig, uint32_t leaves)
{
    for (uint32_t base = RANGE_FIRST; base <= RANGE_LAST; base += RANGE_STEP) {
        struct cpuid_result r = cpuid(base, 0);

        if (r.ebx == sig.ebx && r.ecx == sig.ecx && r.edx == sig.edx && r.eax >= base + leaves &&
            r.eax < base + RANGE_STEP)
            return base;
    }
    return 0;
}
