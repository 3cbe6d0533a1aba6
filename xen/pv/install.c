/* Installing the Xen PV backend. */
#include "pv/call.h"
#include "drivers/block.h"
#include "drivers/net.h"
#include "xen/events.h"
#include "xen/grant_table.h"
#include "xen/pv/backend.h"
#include "xen/pv/patch.h"

/* What the patcher asks for once the tables are installed: the irq ops
 * that fit their sites go inline, every other op becomes a direct call to
 * the callee-save entry its table slot holds (xen/pv/patch.c has the encodings). */
const struct pv_backend *xen_site_backend(void)
{
    static struct xen_patch_ctx ctx;
    static struct pv_backend backend;

    pv_ops_current_targets(ctx.direct);
#define XEN_ENTRY_(name) ctx.name = (uint64_t)xen_pv_##name;
    XEN_PATCH_ENTRIES(XEN_ENTRY_)
    xen_patch_backend_init(&backend, &ctx);
    return &backend;
}

/* One form per op under Xen: only the indirect call is left to flip to. */
const struct pv_backend *xen_alt_site_backend(void)
{
    return NULL;
}

/* Once the options are read: the pte-update mode xen.mmu= chose, and
 * the hypercall sites as xen.hypercall= says. */
void xen_setup(void)
{
    xen_hypercall_setup();
    xen_mmu_setup();
}

/* Tour 65: The Xen backend's install.
 * The twin of `native_install`: every table, each filled from the registry
 * with xen_<op> functions. Site ops go through the callee-save thunks
 * `PV_THUNKS` makes below. */
void xen_install(const start_info_t *si)
{
    /* CPU: cpuid through Xen's emulation, so we see the domain's policy;
     * CR2 from vcpu_info; the GS base by hypercall. First, as the per-CPU
     * area is. */
    pv_cpu_ops = (struct pv_cpu_ops)PV_TABLE(xen, cpu);
    percpu_init(0);
    /* Page tables: mmu_update and mmuext_op, one at a time or batched in
     * multicalls, or plain stores Xen traps (xen.mmu=); entries hold
     * machine frames. The table early, as its memory model names frames
     * to Xen: vCPU 0's vcpu_info moves into the per-CPU area. */
    pv_mmu_ops = (struct pv_mmu_ops)PV_TABLE(xen, mmu);
    xen_vcpu_info_register(0);
    /* Machine: dom0's console_io and exit through QEMU's isa-debug-exit,
     * or a domU's console ring and exit through xenstore and
     * SCHEDOP_shutdown; a panic can be reported from here on. */
    xen_console_init();
    xen_features_read();
    pv_machine_ops = (struct pv_machine_ops)PV_TABLE(xen, machine);
    /* Before the toolstack's first save: the p2m where it looks for it. */
    pv_machine_ops.lifecycle_start = xen_pv_lifecycle_start;
    pv_info = (struct pv_info){
        .name = "xen-pv", .variant = xen_role_variant(), .caps = PV_CAP_XEN | PV_CAP_XEN_PV};
    xen_guest_init(si);
    xen_traps_init();     /* exceptions reach trap_dispatch() */
    xen_callbacks_init(); /* the upcall and failsafe callbacks */
    /* Every port masked; unmasking on the port's vCPU announces a pending
     * event there, for irq_enable to deliver. */
    xen_events_init(xen_evtchn_unmask_locally);
    /* Interrupt flag: the vCPU's event mask. */
    pv_irq_ops = (struct pv_irq_ops)PV_TABLE(xen, irq);
    xen_mmu_batch_init();
    xen_mmu_cr3_init();
    /* Patching: the mask store inline, direct calls elsewhere; text
     * written through a writable, non-executable alias (text_poke.c). */
    pv_patch_ops = (struct pv_patch_ops)PV_TABLE(xen, patch);
    /* Time: Xen system time and each vCPU's one-shot timer. */
    pv_time_ops = (struct pv_time_ops)PV_TABLE(xen, time);
    /* vCPU 0's ports: its timer, the IPI that ends its SCHEDOP_block and
     * its lock kick port. Each other vCPU gets its own (xen/smp.c). */
    xen_cpu_ports_init(0);
    xen_cpu_ports_unmask(0);
    /* Locks: a contended waiter blocks in SCHEDOP_poll instead of spinning. */
    pv_lock_ops = xen_lock_ops;
    /* Grant tables: Xen's frames from GNTTABOP_setup_table, mapped by machine frame. */
    gnttab_use(xen_pv_grant_frames);
    /* Disks: the vbds xenstore lists, through blkfront. */
    block_add_probe(blkfront_probe);
    /* Network: the first vif xenstore lists, through netfront. */
    net_add_probe(netfront_probe);
}

PV_THUNKS(xen)
