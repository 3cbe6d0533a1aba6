/* TLB invalidation: what the kernel does after it changes or removes
 * ptes, on this CPU and on every other CPU that may cache them. */
#ifndef MM_TLB_H
#define MM_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/smp.h"
#include "mm/pgtable.h"

/* Invalidates [start, end) on the calling CPU only: per page, or all at
 * once above the ceiling. A shootdown's receiving end runs this too. */
void tlb_flush_local(uint64_t start, uint64_t end);

/* tlb_flush_range() with other CPUs online. */
void tlb_flush_all_cpus(uint64_t start, uint64_t end);

/* Invalidates [start, end) on every CPU: here, then on the others through
 * pv_mmu_ops.flush_tlb_others (a shootdown). Called inside the lazy MMU
 * section that changed the ptes, so a backend may send the shootdown in
 * the same batch as the updates. With one CPU there is nobody to tell,
 * and the path is the local flush alone, as before SMP. */
static inline void tlb_flush_range(uint64_t start, uint64_t end)
{
    if (smp_cpus_online() == 1)
        tlb_flush_local(start, end);
    else
        tlb_flush_all_cpus(start, end);
}

/* Test-only (mm.tlbtest=skip-shootdown): the next shootdowns are skipped,
 * so other CPUs keep stale entries. */
void tlb_skip_shootdowns(bool skip);

#endif
