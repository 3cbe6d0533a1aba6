/* The Xen PV backend's site replacements. Pure: every address comes from
 * the context, so tools/pvemit and the unit tests run the same code. */
#ifndef XEN_XEN_PATCH_H
#define XEN_XEN_PATCH_H

#include <stdint.h>

#include "pv/patch.h"
#include "pv/site.h"

struct xen_patch_ctx {
    /* &shared_info->vcpu_info[0].evtchn_upcall_mask; 0: unknown. */
    uint64_t upcall_mask_addr;
    /* Per op, the callee-save asm implementation a site may call directly
     * (no indirect call left); 0: none, the site keeps its indirect call. */
    uint64_t direct[PV_OP_COUNT];
};

/* Fills *be as the "xen" backend for ctx, which must outlive *be.
 *   irq_disable: movb $1, mask(%rip) inline (7 bytes), storing to the mask
 *                byte; a direct call when the mask is not set or not in
 *                rel32 reach of the site.
 *   other ops:   a direct call to direct[op] when set. */
void xen_patch_backend_init(struct pv_backend *be, const struct xen_patch_ctx *ctx);

#endif
