/* Finding a hypervisor's CPUID leaves: the scan by which the PVH entry
 * tells Xen and KVM from bare metal, each by its signature. Pure, so the
 * host unit tests run it over a faked CPUID. */
#ifndef ARCH_X86_CPUID_BASE_H
#define ARCH_X86_CPUID_BASE_H

#include <stdint.h>

#include "pv/ops.h"

typedef struct cpuid_result (*cpuid_fn)(uint32_t leaf, uint32_t subleaf);

/* A signature as the first leaf of a range returns it, in EBX, ECX, EDX. */
struct cpuid_signature {
    uint32_t ebx, ecx, edx;
};

/* The first leaf of the first range 0x40000000 + k * 0x100 (up to
 * 0x4000ff00) whose first leaf returns sig and in EAX a last leaf at
 * least `leaves` past it and inside the range; 0 when there is none. The
 * ranges are scanned as Linux scans them: one hypervisor may offer
 * another's interface below its own (Xen's Viridian at 0x40000000). */
uint32_t cpuid_base_find(cpuid_fn cpuid, struct cpuid_signature sig, uint32_t leaves);

#endif
