/* The Xen platform ops: Xen's console, an exit through QEMU's
 * isa-debug-exit port (with SCHEDOP_shutdown behind it), and the page-table
 * view of a PV guest, whose entries hold machine addresses. */
#include "arch/x86/cpu.h"
#include "kernel/boot_info.h"
#include "pv/platform_ops.h"
#include "xen/hypercall.h"
#include "xen/pv_guest.h"

const struct pv_backend *xen_ops_patch_backend(void);          /* xen/xen_patching.c */
void xen_text_poke(void *addr, const void *bytes, size_t len); /* xen/text_poke.c */

#define DEBUG_EXIT_PORT 0xf4 /* QEMU -device isa-debug-exit,iobase=0xf4 */

/* Dom0 may reach I/O ports once it raises its virtual IOPL; Xen then
 * emulates the `out` and QEMU exits at once with (status << 1) | 1.
 * SCHEDOP_shutdown would work too but makes Xen wait 5 s before it resets,
 * so it is only the fallback (and a domU's only way out). */
void xen_exit(int status)
{
    struct sched_shutdown shutdown = {
        .reason = status == 0 ? SHUTDOWN_poweroff : SHUTDOWN_crash,
    };

    if (xen_is_initial_domain()) {
        struct physdev_set_iopl iopl = {.iopl = 1};
        if (HYPERVISOR_physdev_op(PHYSDEVOP_set_iopl, &iopl) == 0)
            outb(DEBUG_EXIT_PORT, (uint8_t)status);
    }
    for (;;)
        HYPERVISOR_sched_op(SCHEDOP_shutdown, &shutdown);
}

/* Reading CR3 traps to Xen, which emulates it with the machine address of
 * the current top-level table: the live value, as natively. Used once, to
 * seed the mmu ops' cached copy. */
uint64_t xen_read_cr3_trapped(void)
{
    uint64_t v;

    __asm__ volatile("mov %%cr3, %0" : "=r"(v));
    return v;
}

/* Every page table is RAM of ours, mapped (read-only) at the virtual
 * address of its pseudo-physical frame. */
static void *xen_maddr_to_virt(uint64_t maddr)
{
    return (void *)((mfn_to_pfn(maddr >> 12) << 12) | (maddr & 0xfff));
}

/* Xen ABI: a PV guest's entries hold machine frames, not its own. */
static uint64_t xen_phys_to_maddr(uint64_t pa)
{
    return virt_to_maddr((const void *)pa); /* VIRT_BASE 0: the same address */
}

const struct platform_ops xen_platform_ops = {
    .name = "xen",
    .console_write = xen_console_write,
    .exit = xen_exit,
    .kernel_map_init = xen_kernel_map_init,
    .maddr_to_virt = xen_maddr_to_virt,
    .phys_to_maddr = xen_phys_to_maddr,
    .patch_backend = xen_ops_patch_backend,
    .text_poke = xen_text_poke,
};
