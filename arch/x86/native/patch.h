/* The native backend's site replacements: the registry's native
 * instructions (pv/op_list.h), inline, so a patched site differs from a
 * PARAVIRT=n build only by NOP padding. Pure: the host tools and unit tests
 * run the same code. */
#ifndef ARCH_X86_NATIVE_PATCH_H
#define ARCH_X86_NATIVE_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/patch.h"
#include "pv/site.h"

/* One template in section pv_native_templates (arch/x86/native/insns.c):
 * bytes at a place given relative to the record, so the table needs no
 * relocation in a position-independent host build. */
struct native_template {
    int32_t offset; /* the bytes start at (char *)&offset + offset */
    uint16_t op;    /* enum pv_op */
    uint8_t len;
    uint8_t variant; /* NATIVE_PLAIN or NATIVE_CONDSTI */
};

#define NATIVE_PLAIN 0
/* restore_fl as `test $0x200,%edi; jz 1f; sti; 1:` instead of
 * `push %rdi; popf`: only right when restore_fl never has to clear IF. */
#define NATIVE_CONDSTI 1

struct native_patch_ctx {
    bool restore_fl_condsti;
};

/* The backend for ctx; ctx is read now, so it need not outlive the call. */
const struct pv_backend *native_patch_backend(const struct native_patch_ctx *ctx);

/* The raw instructions for op (condsti picks restore_fl's form), and their
 * length in *len; NULL for an op with no template. Every site op has one,
 * some of length 0 (enter/leave_lazy_mmu do nothing natively). */
const uint8_t *native_template(enum pv_op op, bool condsti, size_t *len);

#endif
