#include "xen/patch.h"

#define MOVB_GS_IMM8_LEN 9 /* 65 prefix, C6 /0, ModRM 04, SIB 25, disp32, imm8 */

/* Tour 90: The same site under Xen.
 * Under Xen the vCPU's interrupt flag is a byte in memory it shares with
 * Xen, `evtchn_upcall_mask`, and masking events is all that disabling
 * interrupts means to a PV guest. On SMP each vCPU has its own mask, in
 * its own vcpu_info, which this kernel keeps in the per-CPU area. So
 * `irq_disable` becomes one store through the GS base,
 * `movb $1, %gs:offset`: `65 c6 04 25 disp32 01`, nine bytes (the
 * one-CPU form `movb $1, mask(%rip)` took seven), and no hypercall.
 * `xen_replacement` below gives every other op a direct call to its
 * thunk: no indirect call is left. */
static void emit_mask_events(struct pv_replacement *out)
{
    uint32_t disp = XEN_UPCALL_MASK_GS_OFFSET;

    out->bytes[0] = 0x65; /* GS segment override: the address is GS base + disp32 */
    out->bytes[1] = 0xc6; /* mov r/m8, imm8 */
    out->bytes[2] = 0x04; /* ModRM: mod 00, reg /0, r/m 100 = a SIB byte follows */
    out->bytes[3] = 0x25; /* SIB: no index, base 101 with mod 00 = disp32 alone, not rip */
    for (int i = 0; i < 4; i++)
        out->bytes[4 + i] = (uint8_t)(disp >> (8 * i)); /* little-endian */
    out->bytes[8] = 0x01;                               /* imm8: masked */
    out->len = MOVB_GS_IMM8_LEN;
    out->kind = PV_REPL_INLINE;
}

/* The site backend's one question: what goes at this site? */
static void xen_replacement(const struct pv_backend *be, enum pv_op op, uint64_t site_addr,
                            struct pv_replacement *out)
{
    const struct xen_patch_ctx *ctx = be->ctx;

    (void)site_addr;
    if ((unsigned)op >= PV_OP_COUNT)
        return;
    if (op == PV_OP_irq_disable) {
        emit_mask_events(out);
        return;
    }
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
