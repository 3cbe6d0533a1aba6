/* The Xen PV backend's site replacements. Pure: every address comes from
 * the context, so tools/pvemit and the unit tests run the same code. */
#ifndef XEN_XEN_PATCH_H
#define XEN_XEN_PATCH_H

#include <stddef.h>
#include <stdint.h>
#include <xen/xen.h>

#include "kernel/percpu.h"

#include "pv/patch.h"
#include "pv/site.h"

/* Where a field of this vCPU's vcpu_info sits from the GS base: the
 * vcpu_info lives in the per-CPU area (xen/pv/cpu.c). */
#define XEN_VCPU_GS(field) (offsetof(struct percpu, platform) + offsetof(struct vcpu_info, field))
#define XEN_UPCALL_MASK_GS_OFFSET XEN_VCPU_GS(evtchn_upcall_mask)

#define XEN_UPCALL_PENDING_GS_OFFSET XEN_VCPU_GS(evtchn_upcall_pending)

/* The entries the inline templates call, by name: each is the image's
 * symbol xen_pv_<name> (tools/pvsites finds them so). */
#define XEN_PATCH_ENTRIES(X) X(force_upcall) X(restore_fl_cf)

struct xen_patch_ctx {
    /* Per op, the callee-save asm implementation a site may call directly
     * (no indirect call left); 0: none, the site keeps its indirect call. */
    uint64_t direct[PV_OP_COUNT];
    /* Has Xen deliver pending events, every register kept: what an
     * inline irq_enable calls on its rare path; 0: irq_enable stays a call. */
    uint64_t force_upcall;
    /* restore_fl's body, entered with CF = flags.IF; 0: restore_fl stays
     * a call to direct[restore_fl]. */
    uint64_t restore_fl_cf;
};

/* Fills *be as the "xen" backend for ctx, which must outlive *be.
 *   irq_disable: movb $1, %gs:XEN_UPCALL_MASK_GS_OFFSET inline (9 bytes),
 *                storing to this vCPU's mask byte.
 *   save_fl:     cmpb $1, %gs:XEN_UPCALL_MASK_GS_OFFSET; sbb %eax, %eax
 *                inline (11 bytes), reading it.
 *   irq_enable:  movb $0, mask; cmpb $0, pending; jz 1f; call force_upcall; 1:
 *                inline (25 bytes) when force_upcall is set.
 *   restore_fl:  bt $9, %edi; call restore_fl_cf (9 bytes) when it is set.
 *   other ops:   a direct call to direct[op] when set. */
void xen_patch_backend_init(struct pv_backend *be, const struct xen_patch_ctx *ctx);

#endif
