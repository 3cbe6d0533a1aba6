/* CPU identification for kernel code: cpuid through pv_cpu_ops (under Xen
 * it must go through Xen's emulation to see the domain's view). */
#ifndef PV_CPU_H
#define PV_CPU_H

#include "pv/ops.h"

static inline struct cpuid_result cpu_id(uint32_t leaf, uint32_t subleaf)
{
    return pv_cpu_ops.cpuid(leaf, subleaf);
}

/* The address the last page fault was for. */
static inline uint64_t read_cr2(void)
{
    return pv_cpu_ops.read_cr2();
}

#endif
