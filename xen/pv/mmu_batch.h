/* The one path to Xen that pte writes (pte.c), CR3 and the TLB (tlb.c)
 * and page tables made and released (page_table.c) all take
 * (mmu_batch.c), and each vCPU's state it keeps. */
#ifndef XEN_PV_MMU_BATCH_H
#define XEN_PV_MMU_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/percpu.h"
#include "xen/pv/multicall.h"

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
    return this_cpu_elem(xen_mmu_cpus);
}

/* the panic for a request Xen refused, naming it. */
__attribute__((noreturn)) void xen_mmu_report_failure(const struct mc_failure *f);

/* updates the entry at ptep (cmd: its MMU_* command), queued
 * in this vCPU's batch or at once. */
void xen_mmu_update_entry(uint64_t *ptep, uint64_t val, unsigned cmd, bool queue);

/* one mmuext_op, queued in a lazy section, else at once. */
void xen_mmuext(const struct mmuext_op *op);

/* Issues this vCPU's queue now: inline, as it is on every path that
 * leaves a lazy section or keeps updates in program order. */
static inline void xen_mmu_flush_queue(void)
{
    struct mc_failure f;

    if (!mc_flush(&this_mmu()->mc, &f))
        xen_mmu_report_failure(&f);
}

#endif
