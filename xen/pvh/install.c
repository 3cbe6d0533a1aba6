/* Installing the Xen PVH backend: tables composed from the native
 * backend's ops and Xen's, per op. */
#include "arch/x86/descriptors.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "drivers/block.h"
#include "drivers/net.h"
#include "xen/events.h"
#include "xen/grant_table.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

/* The ops that work both ways under PVH: Xen's (the default, what Linux
 * chooses) or the emulated hardware's, so the benchmarks can set one
 * against the other. */
enum { TIMER_PV, TIMER_LAPIC };
static const char *const timer_choices[] = {"pv", "lapic", 0};
static int timer_choice = TIMER_PV;
OPTION_ENUM_WHERE(
    PV_CAP_XEN_PVH, timer_choice, "xen.timer", timer_choices,
    "PVH: Xen's one-shot timer (VCPUOP_set_singleshot_timer) or the emulated LAPIC timer");
enum { IPI_EVTCHN, IPI_LAPIC };
static const char *const ipi_choices[] = {"evtchn", "lapic", 0};
static int ipi_choice = IPI_EVTCHN;
OPTION_ENUM_WHERE(
    PV_CAP_XEN_PVH, ipi_choice, "xen.ipi", ipi_choices,
    "PVH: IPIs as event channels (EVTCHNOP_send) or through the emulated LAPIC's ICR");
enum { SHOOTDOWN_HYPERCALL, SHOOTDOWN_IPI };
static const char *const shootdown_choices[] = {"hypercall", "ipi", 0};
static int shootdown_choice = SHOOTDOWN_HYPERCALL;
OPTION_ENUM_WHERE(PV_CAP_XEN_PVH, shootdown_choice, "xen.shootdown", shootdown_choices,
                  "PVH: TLB shootdowns by HVMOP_flush_tlbs or by an IPI to each vCPU");

/* Under PVH the guest calibrates only the emulated LAPIC timer: Xen's
 * clock and Xen's one-shot timer are Xen's to keep right. */
static const char *miscalibrate_needs_lapic_timer(void)
{
    if (!(pv_info.caps & PV_CAP_XEN_PVH) || time_miscalibration() == 1 ||
        timer_choice == TIMER_LAPIC)
        return NULL;
    return "time.miscalibrate=on needs xen.timer=lapic under PVH: the guest calibrates no other "
           "timer";
}
OPTION_CHECK(miscalibrate_needs_lapic_timer);

/* Xen ABI: XENMAPSPACE_shared_info puts Xen's shared_info frame at a
 * guest frame of ours (HAP maps it; no page-table entry of ours changes). */
void xen_pvh_map_shared_info(void)
{
    struct xen_add_to_physmap map = {.domid = DOMID_SELF,
                                     .space = XENMAPSPACE_shared_info,
                                     .idx = 0,
                                     .gpfn = xen_frame_of(&xen_shared_info_page)};

    xen_must(HYPERVISOR_memory_op(XENMEM_add_to_physmap, &map),
             "XENMEM_add_to_physmap shared_info");
}

/* Once the options are read, before anything ticks, sends an IPI or
 * shoots down a TLB: the slots each per-op choice decides. */
void xen_pvh_setup(void)
{
    if (timer_choice == TIMER_LAPIC) {
        xen_pvh_lapic_timer_init();
        pv_time_ops.timer_oneshot = xen_pvh_lapic_timer_oneshot;
    }
    pv_cpu_ops.send_ipi = ipi_choice == IPI_LAPIC ? native_send_ipi : xen_send_ipi;
    pv_mmu_ops.flush_tlb_others =
        shootdown_choice == SHOOTDOWN_IPI ? native_flush_tlb_others : xen_pvh_flush_tlb_others;
    kprintf("xen: pvh: timer %s, IPIs %s, shootdowns %s\n",
            timer_choice == TIMER_LAPIC ? "emulated LAPIC (xen.timer=lapic)"
                                        : "VCPUOP_set_singleshot_timer (xen.timer=pv)",
            ipi_choice == IPI_LAPIC ? "emulated LAPIC ICR (xen.ipi=lapic)"
                                    : "EVTCHNOP_send (xen.ipi=evtchn)",
            shootdown_choice == SHOOTDOWN_IPI ? "IPI to each vCPU (xen.shootdown=ipi)"
                                              : "HVMOP_flush_tlbs (xen.shootdown=hypercall)");
}

/* Tour 67: The PVH backend's install: composed per op.
 * The twin of `native_install` and `xen_install`, but it writes no op of
 * its own for what the hardware now does: the irq, mmu and patch tables
 * are the native backend's whole (`PV_TABLE(native, ...)`), so a patched
 * `cli` site under PVH holds the very bytes it holds natively. Xen's
 * implementations come from xen/, shared with the PV backend: the clock,
 * the one-shot timer, the console, the exit, event channels, the pv
 * spinlock. Where both ways work, `xen_pvh_setup` picks one per op once
 * the options are read: the timer, IPIs and shootdowns. */
void xen_pvh_install(void)
{
    /* CPU: the instructions (cpuid answers with Xen's leaves too); the
     * vCPUs Xen lists, each started by hypercall. */
    pv_cpu_ops = (struct pv_cpu_ops)PV_TABLE(native, cpu);
    pv_cpu_ops.cpus_possible = xen_cpus_possible;
    pv_cpu_ops.start_cpu = xen_pvh_start_cpu;
    pv_cpu_ops.send_ipi = xen_send_ipi;
    descriptors_init_native(); /* the IDT is the hardware's: traps and events arrive there */
    percpu_init(0);
    /* Page tables: the CPU's own, under hardware-assisted paging; frames
     * are guest frames. Shootdowns are Xen's until xen_pvh_setup. */
    pv_mmu_ops = (struct pv_mmu_ops)PV_TABLE(native, mmu);
    pv_mmu_ops.flush_tlb_others = xen_pvh_flush_tlb_others;
    xen_pvh_map_shared_info();
    xen_vcpu_info_register(0);
    /* Machine: dom0's console_io and exit through QEMU's isa-debug-exit,
     * or a domU's console ring and exit through xenstore and
     * SCHEDOP_shutdown, as under PV; a panic can be reported from here on. */
    xen_console_init();
    xen_features_read();
    pv_machine_ops = (struct pv_machine_ops){.console_write = xen_console_write,
                                             .exit = xen_exit,
                                             .setup = xen_pvh_setup,
                                             .selftest = xen_selftest,
                                             .lifecycle_start = xen_lifecycle_start,
                                             .lifecycle_request = xen_lifecycle_request,
                                             .suspend = xen_pvh_suspend,
                                             .cpu_resume = xen_cpu_resume,
                                             .domain_id = xen_domain_id};
    pv_info = (struct pv_info){.name = "xen-pvh",
                               .variant = xen_role_variant(),
                               .caps = PV_CAP_XEN | PV_CAP_XEN_PVH | PV_CAP_NATIVE_SITES |
                                       PV_CAP_CALIBRATES};
    /* Events: every port masked; they arrive on the callback vector, which
     * only Xen raises, so Xen unmasks. */
    xen_events_init(xen_evtchn_unmask_by_xen);
    xen_pvh_callback_init();
    /* Interrupt flag: the CPU's own. */
    pv_irq_ops = (struct pv_irq_ops)PV_TABLE(native, irq);
    /* The emulated LAPIC: the other way for IPIs, shootdowns and the timer. */
    lapic_init();
    native_cpu_apic_id_set(0, lapic_id());
    native_shootdown_init();
    /* Patching: the registry's instructions inline; text written with
     * CR0.WP clear. */
    pv_patch_ops = (struct pv_patch_ops)PV_TABLE(native, patch);
    /* Time: Xen system time and each vCPU's one-shot timer; the TSC at
     * the rate Xen states is the reference the self-test checks against. */
    pv_time_ops = (struct pv_time_ops){
        .now_ns = xen_now_ns, .timer_oneshot = xen_timer_oneshot, .reference_ns = xen_reference_ns};
    xen_cpu_ports_init(0);
    xen_cpu_ports_unmask(0);
    /* Locks: a contended waiter blocks in SCHEDOP_poll instead of spinning. */
    pv_lock_ops = xen_lock_ops;
    /* Grant tables: placed in guest-physical space by XENMEM_add_to_physmap. */
    gnttab_use(xen_pvh_grant_frames);
    /* Disks: the vbds xenstore lists, through blkfront. */
    block_add_probe(blkfront_probe);
    /* Network: the first vif xenstore lists, through netfront. */
    net_add_probe(netfront_probe);
}
