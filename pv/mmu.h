/* The kernel's page-table primitives: one paravirt call site each
 * (pv/call.h), or the bare native instructions in a PARAVIRT=n build; and
 * the rare ones, called through pv_mmu_ops from C. */
#ifndef PV_MMU_H
#define PV_MMU_H

#include <stdint.h>

#include "pv/call.h"
#include "pv/ops.h"

static inline uint64_t read_cr3(void)
{
    uint64_t v;
    __asm__ volatile(PV_OP_ASM(read_cr3)
                     : "=a"(v)
                     : PV_OP_OPERANDS(mmu, read_cr3)
                     : "memory", "cc");
    return v;
}

static inline void write_cr3(uint64_t v)
{
    __asm__ volatile(PV_OP_ASM(write_cr3)
                     :
                     : "D"(v), PV_OP_OPERANDS(mmu, write_cr3)
                     : "memory", "cc");
}

static inline void flush_tlb_one(uint64_t va)
{
    __asm__ volatile(PV_OP_ASM(flush_tlb_one)
                     :
                     : "D"(va), PV_OP_OPERANDS(mmu, flush_tlb_one)
                     : "memory", "cc");
}

static inline void set_pte(uint64_t *ptep, uint64_t val)
{
    __asm__ volatile(PV_OP_ASM(set_pte)
                     :
                     : "D"(ptep), "S"(val), PV_OP_OPERANDS(mmu, set_pte)
                     : "memory", "cc");
}

/* Tour 120: The pte story begins: start and commit.
 * Changing a pte's protection is read, modify, write. Between the read and
 * the write the CPU may set Accessed or Dirty in the entry, and a plain
 * write would lose them. So the change is split in two ops:
 * `ptep_modify_prot_start` returns the entry and (natively) clears it, and
 * `ptep_modify_prot_commit` writes the new one. Under Xen the pair becomes
 * hypercalls that can be batched: docs/mm.md measures how much that saves,
 * and how far it stays from native. */
static inline uint64_t ptep_modify_prot_start(uint64_t *ptep)
{
    uint64_t old;
    __asm__ volatile(PV_OP_ASM(ptep_modify_prot_start)
                     : "=a"(old)
                     : "D"(ptep), PV_OP_OPERANDS(mmu, ptep_modify_prot_start)
                     : "memory", "cc");
    return old;
}

static inline void ptep_modify_prot_commit(uint64_t *ptep, uint64_t val)
{
    __asm__ volatile(PV_OP_ASM(ptep_modify_prot_commit)
                     :
                     : "D"(ptep), "S"(val), PV_OP_OPERANDS(mmu, ptep_modify_prot_commit)
                     : "memory", "cc");
}

static inline void enter_lazy_mmu(void)
{
    __asm__ volatile(PV_OP_ASM(enter_lazy_mmu)
                     :
                     : PV_OP_OPERANDS(mmu, enter_lazy_mmu)
                     : "memory", "cc");
}

static inline void leave_lazy_mmu(void)
{
    __asm__ volatile(PV_OP_ASM(leave_lazy_mmu)
                     :
                     : PV_OP_OPERANDS(mmu, leave_lazy_mmu)
                     : "memory", "cc");
}

/* Not call sites: they run once per page table made, swapped or freed,
 * so a plain call through the table costs nothing worth patching. */
static inline void make_page_table(uint64_t pa, int level)
{
    pv_mmu_ops.make_page_table(pa, level);
}

static inline void set_table_entry(uint64_t *entryp, uint64_t val)
{
    pv_mmu_ops.set_table_entry(entryp, val);
}

static inline void release_page_table(uint64_t pa, int level)
{
    pv_mmu_ops.release_page_table(pa, level);
}

static inline bool swaps_whole_tables(void)
{
    return pv_mmu_ops.swaps_whole_tables();
}

/* What a page-table entry holds for the frame at pseudo-physical pa: the
 * same address natively, the machine frame under Xen. */
static inline uint64_t phys_to_maddr(uint64_t pa)
{
    return pv_mmu_ops.phys_to_maddr(pa);
}

static inline uint64_t maddr_to_phys(uint64_t maddr)
{
    return pv_mmu_ops.maddr_to_phys(maddr);
}

#endif
