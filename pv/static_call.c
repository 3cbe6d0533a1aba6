#include "pv/static_call.h"

#include <stdint.h>

#include "kernel/exit.h"
#include "kernel/smp.h"
#include "pv/ops.h"

#define JMP_REL32 0xe9

void static_call_retarget(void *trampoline, void *target)
{
    uint8_t *t = trampoline;
    int64_t rel = (int64_t)((uint64_t)target - ((uint64_t)trampoline + 5));
    int32_t rel32 = (int32_t)rel;

    /* SDM 8.1.3: another CPU may execute these bytes while they change;
     * until a cross-CPU-safe rewrite exists, only one CPU may be running. */
    if (smp_cpus_online() > 1)
        panic("static call at %p: cannot retarget while %u CPUs run", trampoline,
              smp_cpus_online());
    if (t[0] != JMP_REL32)
        panic("static call at %p is not a jmp rel32 trampoline", trampoline);
    if (rel != rel32)
        panic("static call target %p is out of reach of %p", target, trampoline);
    pv_patch_ops.text_poke(t + 1, &rel32, sizeof(rel32));
}
