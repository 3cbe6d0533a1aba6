/* Xen's page-table ops, in four modes chosen with xen.mmu=:
 *
 *   trap       pte writes are plain stores to the read-only page table;
 *              Xen traps each one and emulates it (its writable page-table
 *              emulation for PV guests): the slow path of 2008.
 *   hypercall  one mmu_update hypercall per pte.
 *   batch      in a lazy MMU section, updates and TLB flushes are queued
 *              in this vCPU's multicall buffer (xen/pv/multicall.c) and issued
 *              at leave_lazy_mmu() or when it fills; outside one, at once.
 *   swap       batch, but an mprotect of a whole L1's worth of pages builds
 *              a new L1 and swaps it in with one mmu_update of the L2
 *              entry (mm/table_swap.c), which Xen validates in one pass.
 *
 * This file holds the choices (xen.mmu=, xen.preserve_ad=, xen.pin=) and
 * the setup; the ops are in pte.c (pte writes), tlb.c (CR3 and the TLB)
 * and page_table.c (tables made and released), and every mmu_update and
 * mmuext_op they make, in any mode, reaches Xen through mmu_batch.c.
 *
 * Xen ABI (PV memory management): a page table must have no writable
 * mapping; Xen validates every entry it installs and holds machine frames.
 * ptep is where the kernel reads an entry: RAM is mapped at VA == PA, so
 * virt_to_maddr(ptep) is the entry's machine address. */
#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/printf.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"
#include "xen/pv/mmu.h"
#include "xen/pv/multicall.h"

static const char *const mode_names[] = {"trap", "hypercall", "batch", "swap", 0};
int xen_mmu_mode = XEN_MMU_BATCH;
OPTION_ENUM_WHERE(PV_CAP_XEN_PV, xen_mmu_mode, "xen.mmu", mode_names, "how pte updates reach Xen");
static bool preserve_ad_wanted = true;
OPTION_BOOL_WHERE(PV_CAP_XEN_PV, preserve_ad_wanted, "xen.preserve_ad",
                  "commit ptes with MMU_PT_UPDATE_PRESERVE_AD when Xen offers it");
bool xen_mmu_pin_tables;
OPTION_BOOL_WHERE(PV_CAP_XEN_PV, xen_mmu_pin_tables, "xen.pin",
                  "pin each new page table (MMUEXT_PIN_L*_TABLE) as it is made");

/* Set by xen_mmu_setup(): commits keep A/D through Xen, so start
 * need not clear the entry. Never in trap mode, which has no hypercall. */
bool xen_mmu_preserve_ad;

static const char *mode_description(char *buf, size_t size)
{
    if (xen_mmu_mode == XEN_MMU_TRAP)
        return "plain stores, each trapped and emulated by Xen";
    if (xen_mmu_mode == XEN_MMU_HYPERCALL)
        return "one mmu_update hypercall per pte";
    ksnprintf(
        buf, size, "%squeued in lazy MMU sections, multicalls of up to %d entries and %d ptes",
        xen_mmu_mode == XEN_MMU_SWAP ? "whole L1 tables swapped for a new copy, the rest " : "",
        MC_ENTRIES, MC_MMU_UPDATES);
    return buf;
}

static const char *ad_policy(bool offered)
{
    if (xen_mmu_preserve_ad)
        return "commit with MMU_PT_UPDATE_PRESERVE_AD";
    if (xen_mmu_mode == XEN_MMU_TRAP)
        return "start clears the pte";
    return offered ? "start clears the pte (xen.preserve_ad=off)"
                   : "start clears the pte (Xen lacks MMU_PT_UPDATE_PRESERVE_AD)";
}

void xen_mmu_setup(void)
{
    bool offered = xen_has_feature(XENFEAT_mmu_pt_update_preserve_ad);
    char description[160];

    xen_mmu_preserve_ad = xen_mmu_mode != XEN_MMU_TRAP && preserve_ad_wanted && offered;
    /* Xen ABI: without this assist a domU's store to an L1 table is a #PF
     * bounced to it, not an emulated update (dom0's reach Xen's emulator
     * anyway, through its read-only MMIO check). Trap mode stores every
     * entry; without PRESERVE_AD start's xchg is a store too. */
    if (!xen_mmu_preserve_ad)
        xen_must(HYPERVISOR_vm_assist(VMASST_CMD_enable, VMASST_TYPE_writable_pagetables),
                 "vm_assist writable_pagetables");
    kprintf("xen: pte updates by %s: %s; A/D bits: %s\n", mode_names[xen_mmu_mode],
            mode_description(description, sizeof(description)), ad_policy(offered));
    kprintf("xen: new page tables %s\n",
            xen_mmu_pin_tables ? "pinned as they are made (MMUEXT_PIN_L*_TABLE)"
                               : "typed by the link that installs them, not pinned (xen.pin=off)");
}
