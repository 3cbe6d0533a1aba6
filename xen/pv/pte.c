/* pte writes under Xen, in the mode xen.mmu= chose (mmu.c): the set_pte,
 * ptep_modify_prot and lazy MMU section ops. Each write is a store Xen
 * traps, or an mmu_update through xen/pv/mmu_batch.c, queued inside a
 * lazy section in batch and swap modes. */
#include <stdbool.h>

#include "mm/mm_stats.h"
#include "xen/pv/backend.h"
#include "xen/pv/mmu.h"
#include "xen/pv/mmu_batch.h"

/* Swap mode queues every update it does not swap as batch mode does. */
static bool batching(void)
{
    return xen_mmu_mode == XEN_MMU_BATCH || xen_mmu_mode == XEN_MMU_SWAP;
}

/* A plain store to a read-only L1 table: Xen's page-fault handler sees
 * the write, validates the new entry and performs it
 * (VMASST_TYPE_writable_pagetables, turned on by xen_mmu_setup). */
static void store_trapped(uint64_t *ptep, uint64_t val)
{
    mm_stats_add(MM_TRAPS_EMULATED, 1);
    __atomic_store_n(ptep, val, __ATOMIC_RELAXED);
}

/* Tour 140: Four ways to write a pte under Xen.
 * `trap`: store to the read-only page table and let Xen's page-fault handler
 * emulate it, the path the series started from; `hypercall`: one
 * mmu_update per pte; `batch`: queue it in the multicall buffer, issued at
 * `leave_lazy_mmu`; `swap`: as batch, but an mprotect of a whole table
 * builds a new one and swaps it in (mm/table_swap.c). All but `trap` share
 * one path, `xen_mmu_update_entry`, and every call leaves through `issue`.
 * docs/mm.md has this project's measured cost of each. */
static void write_pte(uint64_t *ptep, uint64_t val, unsigned cmd)
{
    if (xen_mmu_mode == XEN_MMU_TRAP)
        store_trapped(ptep, val);
    else
        xen_mmu_update_entry(ptep, val, cmd, this_mmu()->lazy);
}

void xen_set_pte(uint64_t *ptep, uint64_t val)
{
    write_pte(ptep, val, MMU_NORMAL_PT_UPDATE);
}

/* With MMU_PT_UPDATE_PRESERVE_AD the entry stays live: Xen ORs into the
 * commit whatever A/D bits the CPU sets meanwhile. Without it, clear the
 * entry as native code does, so the CPU can set nothing until the commit.
 * No hypercall reads and clears an entry in one step, so this is the
 * locked xchg on the read-only table, which Xen emulates as a cmpxchg of
 * the entry (VMASST_TYPE_writable_pagetables, which xen_mmu_setup turns
 * on for this case). */
uint64_t xen_ptep_modify_prot_start(uint64_t *ptep)
{
    if (xen_mmu_preserve_ad)
        return __atomic_load_n(ptep, __ATOMIC_RELAXED);
    mm_stats_add(MM_TRAPS_EMULATED, 1);
    return __atomic_exchange_n(ptep, 0, __ATOMIC_SEQ_CST);
}

void xen_ptep_modify_prot_commit(uint64_t *ptep, uint64_t val)
{
    write_pte(ptep, val, xen_mmu_preserve_ad ? MMU_PT_UPDATE_PRESERVE_AD : MMU_NORMAL_PT_UPDATE);
}

/* In batch mode the queue is this vCPU's until leave_lazy_mmu() issues
 * it, so the section keeps events masked: no tick can move the thread to
 * another vCPU in between (Linux disables preemption for the same reason).
 * A nested enter keeps the outer section's state. */
void xen_enter_lazy_mmu(void)
{
    unsigned long flags = xen_save_fl();
    struct mmu_cpu *m;

    if (!batching())
        return;
    xen_irq_disable();
    m = this_mmu();
    if (m->lazy)
        return;
    m->lazy_flags = flags;
    m->lazy = true;
}

void xen_leave_lazy_mmu(void)
{
    struct mmu_cpu *m = this_mmu();

    if (!m->lazy)
        return;
    m->lazy = false;
    xen_mmu_flush_queue();
    xen_restore_fl(m->lazy_flags);
}
