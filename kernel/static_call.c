#include "kernel/static_call.h"

#include <stdint.h>

#include "kernel/exit.h"
#include "kernel/string.h"
#include "kernel/live_patch.h"

#define JMP_REL32 0xe9
#define JMP_REL32_LEN 5

/* One place: the trampoline's jmp. A CPU that meets the int3 meanwhile
 * jumps to the new target, as it would a moment later. */
void static_call_retarget(void *trampoline, void *target)
{
    struct live_place p = {.addr = (uint64_t)trampoline,
                           .len = JMP_REL32_LEN,
                           .op = LIVE_JUMP,
                           .jump_to = (uint64_t)target};
    int64_t rel = (int64_t)(p.jump_to - (p.addr + JMP_REL32_LEN));
    int32_t rel32 = (int32_t)rel;

    if (*(const uint8_t *)trampoline != JMP_REL32)
        panic("static call at %p is not a jmp rel32 trampoline", trampoline);
    if (rel != rel32)
        panic("static call target %p is out of reach of %p", target, trampoline);
    p.bytes[0] = JMP_REL32;
    memcpy(p.bytes + 1, &rel32, sizeof(rel32));
    live_patch_write(&p, 1);
}
