/* The Xen patch backend at boot: irq_disable's mask store goes inline,
 * every other op becomes a direct call to the callee-save entry its table
 * slot holds (xen/xen_patch.c has the encodings). */
#include "pv/ops.h"
#include "xen/pv_guest.h"
#include "xen/xen_patch.h"

const struct pv_backend *xen_ops_patch_backend(void);

const struct pv_backend *xen_ops_patch_backend(void)
{
    static struct xen_patch_ctx ctx;
    static struct pv_backend backend;

    ctx.upcall_mask_addr = (uint64_t)&xen_vcpu->evtchn_upcall_mask;
    pv_ops_current_targets(ctx.direct);
    xen_patch_backend_init(&backend, &ctx);
    return &backend;
}
