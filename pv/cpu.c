#include "pv/cpu.h"

#include "kernel/string.h"

void cpu_brand_string(char buf[49])
{
    buf[0] = '\0';
    if (cpu_id(0x80000000, 0).eax < 0x80000004)
        return;
    for (uint32_t i = 0; i < 3; i++) {
        struct cpuid_result r = cpu_id(0x80000002 + i, 0);
        memcpy(buf + 16 * i, &r, 16);
    }
    buf[48] = '\0';
}
