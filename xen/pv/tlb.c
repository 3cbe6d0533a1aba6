/* CR3 and the TLB under Xen: each vCPU's copy of CR3 (reading the real
 * one traps) and what it becomes across a suspend, a new base and local
 * flushes by mmuext_op, and shootdowns as one op Xen carries out. */
#include <stdbool.h>

#include "kernel/exit.h"
#include "mm/pgtable.h"
#include "xen/pv/backend.h"
#include "xen/pv/mmu.h"
#include "xen/pv/mmu_batch.h"

static uint64_t cr3_pa[MAX_CPUS]; /* each CR3 as a pseudo-physical address, across a suspend */

uint64_t xen_read_cr3(void)
{
    return this_mmu()->cr3;
}

void xen_write_cr3(uint64_t v)
{
    struct mmuext_op op = {.cmd = MMUEXT_NEW_BASEPTR, .arg1.mfn = v >> 12};

    this_mmu()->cr3 = v;
    xen_mmuext(&op); /* Xen ABI: the same base again still flushes the TLB */
}

void xen_flush_tlb_one(uint64_t va)
{
    struct mmuext_op op = {.cmd = MMUEXT_INVLPG_LOCAL, .arg1.linear_addr = va};

    xen_mmuext(&op);
}

/* Tour 145: A shootdown under Xen is one op.
 * Xen knows where each vCPU last ran and flushes those physical CPUs
 * itself, so the other vCPUs are never interrupted: no IPI, no event.
 * As Linux does, one page is an INVLPG_MULTI and more a TLB_FLUSH_MULTI:
 * Xen has no ranged form, and each op is a round of flushes inside Xen.
 * The op joins this vCPU's queue, in a lazy section with the pte updates
 * it follows; outside one the queue is issued at once, alone. */
void xen_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end)
{
    unsigned long flags = xen_save_fl();
    struct mmuext_op op = {.cmd = MMUEXT_TLB_FLUSH_MULTI};
    struct mc_failure f;
    struct mmu_cpu *m;

    xen_irq_disable(); /* the queue is this vCPU's */
    m = this_mmu();
    if (m->shootdown_queued && m->shootdown_mask != cpus)
        xen_mmu_flush_queue(); /* the queued op reads the mask it was given */
    m->shootdown_mask = cpus;
    if (end - start == PAGE_SIZE)
        op = (struct mmuext_op){.cmd = MMUEXT_INVLPG_MULTI, .arg1.linear_addr = start};
    set_xen_guest_handle(op.arg2.vcpumask, &m->shootdown_mask);
    if (!mc_queue_mmuext_op(&m->mc, &op, &f))
        xen_mmu_report_failure(&f);
    m->shootdown_queued = true;
    if (!m->lazy)
        xen_mmu_flush_queue();
    xen_restore_fl(flags);
}

/* Reading CR3 traps to Xen, which emulates it with the machine address of
 * the current top-level table. */
static uint64_t read_cr3_trapped(void)
{
    uint64_t v;

    __asm__ volatile("mov %%cr3, %0" : "=r"(v));
    return v;
}

void xen_mmu_cr3_init(void)
{
    this_mmu()->cr3 = read_cr3_trapped();
}

/* Another vCPU starts on this vCPU's top-level table (its VCPUOP_initialise
 * context's ctrlreg[3]): returns that table's machine address, now cpu's
 * CR3 too. */
uint64_t xen_mmu_cpu_init(unsigned cpu)
{
    xen_mmu_cpus[cpu].cr3 = this_mmu()->cr3;
    return xen_mmu_cpus[cpu].cr3;
}

/* A suspend finds no batch open: the caller holds vm_lock, inside which
 * every lazy section runs, and has the other vCPUs parked. */
void xen_mmu_suspend(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        struct mmu_cpu *c = &xen_mmu_cpus[cpu];
        if (c->lazy || c->mc.nentries)
            panic("xen: suspend with CPU %u's lazy MMU section or batch open", cpu);
        cr3_pa[cpu] = c->cr3 ? xen_maddr_to_phys(c->cr3) : 0;
    }
}

/* Every frame changed: the toolstack rewrote the page tables and the
 * p2m, not the copies of CR3 read_cr3 returns. */
void xen_mmu_resume(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cr3_pa[cpu])
            xen_mmu_cpus[cpu].cr3 = xen_phys_to_maddr(cr3_pa[cpu]);
}

/* Xen ABI: a PV guest's read of CR3 traps and returns the machine address
 * of the table Xen runs it on; after a resume this vCPU's copy must be it.
 * A stale copy could go unnoticed for a while: the old frame's
 * machine_to_phys entry may still name the same pseudo-physical page. */
void xen_mmu_check_cr3(void)
{
    uint64_t real = read_cr3_trapped();

    if (this_mmu()->cr3 != real)
        panic("xen: read_cr3's copy 0x%lx is not the table Xen runs, 0x%lx: a machine frame of "
              "the old domain",
              this_mmu()->cr3, real);
}
