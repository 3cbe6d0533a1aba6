/* What the files of Xen PV's page-table ops share: the choices setup made
 * (mmu.c), each vCPU's state, and the one path to Xen (mmu_batch.c) that
 * pte writes (pte.c), CR3 and the TLB (tlb.c) and page tables made and
 * released (page_table.c) all take. */
#ifndef XEN_PV_MMU_H
#define XEN_PV_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/percpu.h"
#include "xen/pv/multicall.h"

enum xen_mmu_mode { XEN_MMU_TRAP, XEN_MMU_HYPERCALL, XEN_MMU_BATCH, XEN_MMU_SWAP };

/* mmu.c: the options, read once setup has run. */
extern int xen_mmu_mode;         /* enum xen_mmu_mode, xen.mmu= */
extern bool xen_mmu_preserve_ad; /* commits keep A/D through Xen; never in trap mode */
extern bool xen_mmu_pin_tables;  /* xen.pin=: pin each new page table */

/* What each vCPU keeps, touched only by that vCPU: a batch-mode lazy
 * section masks events (xen_enter_lazy_mmu), so its thread cannot move to
 * another vCPU halfway and two vCPUs in lazy sections at once each queue
 * in their own buffer. */
struct mmu_cpu {
    bool lazy;                /* between enter_lazy_mmu() and leave_lazy_mmu() */
    unsigned long lazy_flags; /* the event mask to restore at leave_lazy_mmu() */
    uint64_t cr3;             /* what read_cr3 returns: reading CR3 would trap */
    struct mc_batch mc;       /* queued while lazy */
    /* Xen ABI: a *_MULTI op names its vCPUs by the address of a bitmap,
     * read when the op runs, so the queued op points here. */
    xen_ulong_t shootdown_mask;
    bool shootdown_queued; /* the queue holds an op that uses it */
    bool withheld;         /* xen_mmu_withhold(): nothing reaches Xen */
};
extern struct mmu_cpu xen_mmu_cpus[MAX_CPUS]; /* mmu_batch.c */

static inline struct mmu_cpu *this_mmu(void)
{
    return &xen_mmu_cpus[cpu_index()];
}

/* mmu_batch.c: every vCPU's queue, before any is used. */
void xen_mmu_batch_init(void);

/* mmu_batch.c: the panic for a request Xen refused, naming it. */
__attribute__((noreturn)) void xen_mmu_report_failure(const struct mc_failure *f);

/* mmu_batch.c: updates the entry at ptep (cmd: its MMU_* command), queued
 * in this vCPU's batch or at once. */
void xen_mmu_update_entry(uint64_t *ptep, uint64_t val, unsigned cmd, bool queue);

/* mmu_batch.c: one mmuext_op, queued in a lazy section, else at once. */
void xen_mmuext(const struct mmuext_op *op);

/* Issues this vCPU's queue now: inline, as it is on every path that
 * leaves a lazy section or keeps updates in program order. */
static inline void xen_mmu_flush_queue(void)
{
    struct mc_failure f;

    if (!mc_flush(&this_mmu()->mc, &f))
        xen_mmu_report_failure(&f);
}

/* tlb.c: this vCPU's copy of CR3, from the trapped read of the real one. */
void xen_mmu_cr3_init(void);

#endif
