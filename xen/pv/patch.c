#include "xen/pv/patch.h"

#define MOVB_GS_IMM8_LEN 9 /* 65 prefix, C6 /0, ModRM 04, SIB 25, disp32, imm8 */
#define SAVE_FL_LEN 11     /* cmpb $1, %gs:disp32 (9 bytes); sbb %eax, %eax (2) */
#define IRQ_ENABLE_LEN 25  /* movb (9); cmpb (9); jz (2); call rel32 (5) */
#define RESTORE_FL_LEN 9   /* bt $9, %edi (4); call rel32 (5) */

/* A byte of this vCPU's vcpu_info as a ModRM/SIB/disp32 operand through
 * the GS base: ModRM with mod 00 and r/m 100 (a SIB follows), SIB 25 (no
 * index, base 101 with mod 00 = disp32 alone, not rip), then the offset. */
static void emit_gs_operand(uint8_t *at, unsigned reg, uint32_t disp)
{
    at[0] = (uint8_t)(reg << 3 | 0x04);
    at[1] = 0x25;
    for (int i = 0; i < 4; i++)
        at[2 + i] = (uint8_t)(disp >> (8 * i)); /* little-endian */
}

/* Tour 90: The same site under Xen.
 * Under Xen the vCPU's interrupt flag is a byte in memory it shares with
 * Xen, `evtchn_upcall_mask`, and masking events is all that disabling
 * interrupts means to a PV guest. On SMP each vCPU has its own mask, in
 * its own vcpu_info, which this kernel keeps in the per-CPU area. So
 * `irq_disable` becomes one store through the GS base,
 * `movb $1, %gs:offset`: `65 c6 04 25 disp32 01`, nine bytes (the
 * one-CPU form `movb $1, mask(%rip)` took seven), and no hypercall.
 * `save_fl` reads the same byte inline, `irq_enable` clears it and
 * calls out only if an event is pending, and `xen_replacement` below
 * gives every other op a direct call to its table's entry: no indirect
 * call is left. */
static void emit_mask_events(struct pv_replacement *out)
{
    out->bytes[0] = 0x65; /* GS segment override: the address is GS base + disp32 */
    out->bytes[1] = 0xc6; /* mov r/m8, imm8 is C6 /0 */
    emit_gs_operand(&out->bytes[2], 0, XEN_UPCALL_MASK_GS_OFFSET);
    out->bytes[8] = 0x01; /* imm8: masked */
    out->len = MOVB_GS_IMM8_LEN;
    out->kind = PV_REPL_INLINE;
}

/* save_fl from the mask byte, in rax only (the site's clobber): the mask
 * is 0 or 1, so `cmpb $1` borrows exactly when events are enabled and
 * `sbb %eax, %eax` turns the borrow into all ones, IF among them; only IF
 * means anything in a flags word (pv/op_list.h). 11 bytes, so a native
 * save_fl site still pads with one NOP. */
static void emit_save_fl(struct pv_replacement *out)
{
    out->bytes[0] = 0x65; /* GS segment override */
    out->bytes[1] = 0x80; /* cmp r/m8, imm8 is 80 /7 */
    emit_gs_operand(&out->bytes[2], 7, XEN_UPCALL_MASK_GS_OFFSET);
    out->bytes[8] = 0x01;  /* imm8 */
    out->bytes[9] = 0x19;  /* sbb r/m32, r32 */
    out->bytes[10] = 0xc0; /* ModRM: mod 11, reg eax, r/m eax */
    out->len = SAVE_FL_LEN;
    out->kind = PV_REPL_INLINE;
}

/* irq_enable inline: unmask, then look at the pending byte, and only if
 * an event came in while masked call force_upcall, whose hypercall
 * delivers it on return (Xen ABI: a masked event only sets pending). 25
 * bytes: natively sti and a jmp over the rest, one instruction more as
 * before. */
static void emit_irq_enable(struct pv_replacement *out, uint64_t force_upcall)
{
    uint8_t *b = out->bytes;

    b[0] = 0x65; /* movb $0, %gs:mask: C6 /0 ib */
    b[1] = 0xc6;
    emit_gs_operand(&b[2], 0, XEN_UPCALL_MASK_GS_OFFSET);
    b[8] = 0x00;
    b[9] = 0x65; /* cmpb $0, %gs:pending: 80 /7 ib */
    b[10] = 0x80;
    emit_gs_operand(&b[11], 7, XEN_UPCALL_PENDING_GS_OFFSET);
    b[17] = 0x00;
    b[18] = 0x74; /* jz over the call: rel8 */
    b[19] = PV_CALL_REL32_LEN;
    out->call_at = 20; /* the patcher writes call rel32 here */
    out->target = force_upcall;
    out->len = IRQ_ENABLE_LEN;
    out->kind = PV_REPL_INLINE;
}

/* restore_fl: the bit test that a call's padding would otherwise waste,
 * then the rest out of line (xen_pv_restore_fl_cf in xen/pv/irq.c). Inline
 * it all would take 30 bytes, and restore_fl's native forms are rewritten
 * while other CPUs run (kernel/live_patch.c). */
static void emit_restore_fl(struct pv_replacement *out, uint64_t restore_fl_cf)
{
    uint8_t *b = out->bytes;

    b[0] = 0x0f; /* bt $9, %edi: 0F BA /4 ib, ModRM 11 100 111; CF = flags.IF */
    b[1] = 0xba;
    b[2] = 0xe7;
    b[3] = 0x09;
    out->call_at = 4;
    out->target = restore_fl_cf;
    out->len = RESTORE_FL_LEN;
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
    if (op == PV_OP_save_fl) {
        emit_save_fl(out);
        return;
    }
    if (op == PV_OP_irq_enable && ctx->force_upcall != 0) {
        emit_irq_enable(out, ctx->force_upcall);
        return;
    }
    if (op == PV_OP_restore_fl && ctx->restore_fl_cf != 0) {
        emit_restore_fl(out, ctx->restore_fl_cf);
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
