/* The native backend's site replacements: the instructions a kernel built
 * without paravirt has in each wrapper, inline, so a patched site differs
 * from that build only by NOP padding. */
#ifndef ARCH_X86_NATIVE_PATCH_H
#define ARCH_X86_NATIVE_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/patch.h"
#include "pv/site.h"

struct native_patch_ctx {
    /* restore_fl as `test $0x200,%edi; jz 1f; sti; 1:` instead of
     * `push %rdi; popf`: only right when restore_fl never has to clear IF. */
    bool restore_fl_condsti;
};

/* The backend for ctx; ctx is read now, so it need not outlive the call. */
const struct pv_backend *native_patch_backend(const struct native_patch_ctx *ctx);

/* The raw instructions for op (condsti picks restore_fl's form), and their
 * length in *len; NULL for an op with no template. Every op has one, some
 * of length 0 (enter/leave_lazy_mmu do nothing natively). The PARAVIRT=n
 * wrappers must match these bytes exactly. */
const uint8_t *native_template(enum pv_op op, bool condsti, size_t *len);

#endif
