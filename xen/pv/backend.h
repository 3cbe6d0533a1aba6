/* The Xen PV backend's table of contents: what only a PV guest has (the
 * start_info page, the two frame-number tables, the virtual IDT, the
 * event mask standing in for RFLAGS.IF, page tables written through Xen)
 * and every function its files share. The ops themselves, xen_<op>, are
 * declared from the registry; those both Xen backends use are in
 * xen/backend.h. */
#ifndef XEN_PV_BACKEND_H
#define XEN_PV_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "xen/backend.h"

PV_DECLARE_BACKEND(xen)

extern start_info_t *xen_start_info;

/* Pseudo-physical frame -> machine frame: the table Xen built for us
 * (start_info->mfn_list). */
static inline uint64_t pfn_to_mfn(uint64_t pfn)
{
    return ((const xen_pfn_t *)xen_start_info->mfn_list)[pfn];
}

/* Machine frame -> pseudo-physical frame: Xen's read-only
 * machine_to_phys table, mapped in every PV guest at MACH2PHYS_VIRT_START. */
static inline uint64_t mfn_to_pfn(uint64_t mfn)
{
    return ((const unsigned long *)MACH2PHYS_VIRT_START)[mfn];
}

/* With VIRT_BASE 0 a pseudo-physical address is its own virtual address. */
static inline uint64_t virt_to_maddr(const void *va)
{
    uint64_t a = (uint64_t)va;

    return (pfn_to_mfn(a >> 12) << 12) | (a & 0xfff);
}

/* The entry path, in C (start.c), called by boot/xen_pv.asm on the boot
 * stack with Xen's start_info and the top of Xen's bootstrap stack. */
__attribute__((noreturn)) void xen_start(start_info_t *si, uint64_t xen_stack_top);

/* shared_info.c: maps Xen's shared_info (or, before a suspend, our own
 * frame again) at xen_shared_info_page. start.c: reads start_info's
 * console and xenstore rings into xen_domain. */
void xen_pv_map_shared_info(uint64_t maddr);
void xen_pv_read_domain(const start_info_t *si);

/* tlb.c: across a suspend, the copies of CR3 held as pseudo-physical
 * addresses, every frame being new afterwards. */
void xen_mmu_suspend(void);
void xen_mmu_resume(void);
void xen_mmu_check_cr3(void); /* panics unless read_cr3's copy is the table Xen runs */
/* suspend.c: the shared lifecycle_start, and the p2m published. */
const char *xen_pv_lifecycle_start(void);

/* Bring-up, in the order xen_install() (install.c) runs it. */
void xen_guest_init(const start_info_t *si); /* shared_info.c: magic checked, shared_info mapped */
void xen_traps_init(void);                   /* traps.c: the virtual IDT */
/* traps.c: the same virtual IDT in another vCPU's VCPUOP_initialise context. */
void xen_traps_context(struct vcpu_guest_context *c);
void xen_callbacks_init(void);            /* traps.c: the upcall and failsafe callbacks */
void xen_install(const start_info_t *si); /* install.c: all of the above, then every ops table */

/* traps.c: the upcall and failsafe callbacks for another vCPU's
 * VCPUOP_initialise context; vCPU 0 registers its own. */
void xen_callbacks_context(struct vcpu_guest_context *c);
/* irq.c: makes Xen deliver a pending upcall now (it checks on every
 * return from a hypercall); and the same behind a callee-save thunk, the
 * rare path of a patched irq_enable or restore_fl. */
void xen_force_upcall(void);
void xen_pv_force_upcall(void);
/* irq.c: the rest of a patched restore_fl, entered with CF = flags.IF and
 * keeping every register; never called from C. */
void xen_pv_restore_fl_cf(void);

/* mmu_batch.c: every vCPU's multicall buffer; tlb.c: this vCPU's copy of
 * CR3, from the trapped read of the real one. Both before the table is used. */
void xen_mmu_batch_init(void);
void xen_mmu_cr3_init(void);
/* mmu.c: once xen.mmu= is read, what the chosen mode needs from Xen. */
void xen_mmu_setup(void);
/* hypercall_sites.c: every hypercall site rewritten as xen.hypercall= says. */
void xen_hypercall_setup(void);
/* text_poke.c: the page table of the area text is written through,
 * made under the final kernel map's root (a machine address). */
void xen_text_poke_init(uint64_t root);
/* tlb.c: cpu starts on this vCPU's top-level table; returns its machine address. */
uint64_t xen_mmu_cpu_init(unsigned cpu);
/* mmu_batch.c: while on, this vCPU's mmu_updates and mmuext_ops are built and
 * queued as usual but never reach Xen (they report success): for
 * measuring the guest's share of a batch. Call with events masked. */
void xen_mmu_withhold(bool on);

/* grant_frames.c: the grant table's frames, from GNTTABOP_setup_table. */
const char *xen_pv_grant_frames(unsigned nr, uint64_t *frames);

#endif
