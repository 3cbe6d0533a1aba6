/* Installing the native backend. */
#include "arch/x86/descriptors.h"
#include "arch/x86/native/backend.h"
#include "arch/x86/native/patch.h"
#include "arch/x86/serial.h"
#include "drivers/block.h"
#include "drivers/net.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "pv/lock_ops.h"

/* The 2016 LKML proposal: a restore that never has to disable can be a
 * conditional sti, avoiding popf's cost. */
static const char *const restore_fl_choices[] = {"popf", "condsti", 0};
static int restore_fl_choice;
OPTION_ENUM_WHERE(PV_CAP_NATIVE_SITES, restore_fl_choice, "pv.restore_fl", restore_fl_choices,
                  "native restore_fl template: push;popf or test;jz;sti");

/* Asked once the options are read: the template pv.restore_fl chose. */
const struct pv_backend *native_site_backend(void)
{
    struct native_patch_ctx ctx = {.restore_fl_condsti = restore_fl_choice == 1};

    return native_patch_backend(&ctx);
}

/* restore_fl's other template: condsti if pv.restore_fl chose popf. */
const struct pv_backend *native_alt_site_backend(void)
{
    struct native_patch_ctx ctx = {.restore_fl_condsti = restore_fl_choice != 1};

    return native_patch_backend(&ctx);
}

/* Tour 60: Installing a backend: one assignment per table.
 * Reading this function tells you everything the native backend changes;
 * `xen_install` in xen/pv/install.c is its twin. Each table is filled from
 * the registry with the backend's native_<op> functions (`PV_TABLE`).
 * After this, no code asks which platform it runs on. */
void native_install(void)
{
    serial_init();
    /* Machine: COM1, and QEMU's isa-debug-exit to end the run. */
    pv_machine_ops = (struct pv_machine_ops)PV_TABLE(native, machine);
    pv_info = (struct pv_info){.name = "native", .caps = PV_CAP_NATIVE_SITES | PV_CAP_CALIBRATES};
    descriptors_init_native();
    /* CPU: the cpuid instruction, CR2 and the GS base MSR, which points
     * at the boot CPU's per-CPU area from here on. */
    pv_cpu_ops = (struct pv_cpu_ops)PV_TABLE(native, cpu);
    percpu_init(0);
    /* The interrupt flag: cli, sti, pushf, popf, sti;hlt. */
    pv_irq_ops = (struct pv_irq_ops)PV_TABLE(native, irq);
    /* Page tables: plain stores, invlpg, mov to and from %cr3; entries
     * hold physical addresses; other CPUs' TLBs flushed through IPIs. */
    pv_mmu_ops = (struct pv_mmu_ops)PV_TABLE(native, mmu);
    native_shootdown_init();
    /* Patching: the registry's instructions inline; text written with
     * CR0.WP clear. */
    pv_patch_ops = (struct pv_patch_ops)PV_TABLE(native, patch);
    /* Locks: the ticket lock, spinning. */
    pv_lock_ops = native_lock_ops;
    /* Time: the TSC is the clock, the local APIC timer the one-shot; both
     * are calibrated before anything can read them. */
    native_time_init();
    pv_time_ops = (struct pv_time_ops)PV_TABLE(native, time);
    /* Disks and network cards: virtio-blk and virtio-net on the PCI bus. */
    block_add_probe(virtio_blk_probe);
    net_add_probe(virtio_net_probe);
}
