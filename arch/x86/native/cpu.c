/* What the kernel asks the CPU about itself, natively: the instructions. */
#include "arch/x86/cpu.h"
#include "arch/x86/native/backend.h"

struct cpuid_result native_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r = cpuid(leaf, subleaf);

    return (struct cpuid_result){r.eax, r.ebx, r.ecx, r.edx};
}

uint64_t native_read_cr2(void)
{
    uint64_t v;

    __asm__ volatile("mov %%cr2, %0" : "=r"(v));
    return v;
}

/* Nothing here executes swapgs, so the GS base stays this CPU's. */
void native_set_percpu_base(uint64_t base)
{
    wrmsr(MSR_GS_BASE, base);
}
