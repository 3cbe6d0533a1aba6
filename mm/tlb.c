/* TLB invalidation on this CPU and, on SMP, on the others.
 *
 * Every CPU runs on the same page tables, so after a pte loses rights or
 * goes away any CPU may still hold the old translation: the one that
 * changed it flushes its own TLB, then has the others flush theirs (a
 * shootdown) before the change counts as done. How the others are
 * reached is the backend's: natively an IPI and a wait for each
 * acknowledgement, under Xen one mmuext_op that Xen carries out itself. */
#include "mm/tlb.h"

#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "mm/mm_stats.h"
#include "pv/irq.h"
#include "pv/mmu.h"

/* Beyond this many pages one full TLB flush is cheaper than a flush per
 * page (Linux's default tlb_single_page_flush_ceiling is 33 too). */
#define TLB_FLUSH_ALL_ABOVE 33

static bool skip_shootdowns;

void tlb_skip_shootdowns(bool skip)
{
    __atomic_store_n(&skip_shootdowns, skip, __ATOMIC_RELAXED);
}

void tlb_flush_local(uint64_t start, uint64_t end)
{
    if ((end - start) / PAGE_SIZE > TLB_FLUSH_ALL_ABOVE) {
        write_cr3(read_cr3()); /* SDM 4.10.4.1: a CR3 write flushes non-global entries */
        mm_stats_add(MM_TLB_FLUSHES, 1);
        return;
    }
    for (uint64_t va = start; va < end; va += PAGE_SIZE)
        flush_tlb_one(va);
    mm_stats_add(MM_TLB_FLUSHES, (end - start) / PAGE_SIZE);
}

/* Tour 135: After the ptes, every CPU's TLB.
 * mprotect ends here, still inside its lazy-MMU section: flush this CPU,
 * then have the others flush (a shootdown) through
 * `pv_mmu_ops.flush_tlb_others`: natively an IPI to each and a wait,
 * under Xen one op queued behind the pte updates (with one CPU,
 * `tlb_flush_range` in mm/tlb.h stops after the first). Interrupts stay
 * off from the local flush until the others are done: a thread moved to
 * another CPU halfway would flush one CPU and skip another. CPUs are
 * numbered 0 .. online-1 (kernel/smp.c). docs/tlb.md. */
void tlb_flush_all_cpus(uint64_t start, uint64_t end)
{
    unsigned online = smp_cpus_online();
    unsigned long flags = irq_save();
    unsigned others = ((1u << online) - 1) & ~(1u << cpu_index());

    tlb_flush_local(start, end);
    if (!__atomic_load_n(&skip_shootdowns, __ATOMIC_RELAXED)) {
        pv_mmu_ops.flush_tlb_others(others, start, end);
        mm_stats_add(MM_SHOOTDOWNS, 1);
    }
    irq_restore(flags);
}
