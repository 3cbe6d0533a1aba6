#include "xen/patch.h"

#define MOVB_RIP_IMM8_LEN 7 /* C6 /0 ModRM 05 (rip+disp32), disp32, imm8 */

/* Tour 90: The same site under Xen.
 * Under Xen the vCPU's interrupt flag is a byte in memory it shares with
 * Xen, `evtchn_upcall_mask`, and masking events is all that disabling
 * interrupts means to a PV guest. So `irq_disable` becomes one store,
 * `movb $1, mask(%rip)`: `c6 05 disp32 01`, exactly the seven bytes the
 * site was padded to, and no hypercall. `xen_replacement` below gives
 * every other op a direct call to its thunk: no indirect call is left. */
static bool emit_mask_events(uint64_t site_addr, uint64_t mask_addr, struct pv_replacement *out)
{
    /* rip-relative: disp32 counts from the end of the instruction. */
    int64_t disp = (int64_t)(mask_addr - (site_addr + MOVB_RIP_IMM8_LEN));

    if (mask_addr == 0 || disp < INT32_MIN || disp > INT32_MAX)
        return false;
    out->bytes[0] = 0xc6; /* mov r/m8, imm8 */
    out->bytes[1] = 0x05; /* ModRM: mod 00, reg /0, r/m 101 = rip+disp32 in 64-bit mode */
    for (int i = 0; i < 4; i++)
        out->bytes[2 + i] = (uint8_t)((uint64_t)disp >> (8 * i)); /* little-endian */
    out->bytes[6] = 0x01;                                         /* imm8: masked */
    out->len = MOVB_RIP_IMM8_LEN;
    out->kind = PV_REPL_INLINE;
    return true;
}
/* The site backend's one question: what goes at this site? */
static void xen_replacement(const struct pv_backend *be, enum pv_op op, uint64_t site_addr,
                            struct pv_replacement *out)
{
    const struct xen_patch_ctx *ctx = be->ctx;

    if ((unsigned)op >= PV_OP_COUNT)
        return;
    if (op == PV_OP_irq_disable && emit_mask_events(site_addr, ctx->upcall_mask_addr, out))
        return;
    if (ctx->direct[op] != 0) {
        out->kind = PV_REPL_CALL;
        out->target = ctx->direct[op];
    }
}

void xen_patch_backend_init(struct pv_backend *be, const struct xen_patch_ctx *ctx)
{
    be->name = "xen";
    be->replacement = xen_replacement;
    be->ctx = ctx;
    be->variant = NULL;
}
