/* The kernel's page-table primitives: one paravirt call site each
 * (pv/call.h), or the bare native instructions in a PARAVIRT=n build. */
#ifndef PV_MMU_H
#define PV_MMU_H

#include <stdint.h>

#include "pv/call.h"
#include "pv/ops.h"

#if CONFIG_PARAVIRT

#define PV_MMU_SITE(member, op, clob)                                                              \
    PV_SITE_OPERANDS(&pv_mmu_ops.member, op, PV_SITE_LEN_DEFAULT, clob)

static inline uint64_t read_cr3(void)
{
    uint64_t v;
    __asm__ volatile(PV_INDIRECT_CALL
                     : "=a"(v)
                     : PV_MMU_SITE(read_cr3, PV_OP_READ_CR3, PV_CLOBBER_RAX)
                     : "memory", "cc");
    return v;
}

static inline void write_cr3(uint64_t v)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : "D"(v), PV_MMU_SITE(write_cr3, PV_OP_WRITE_CR3, PV_CLOBBER_NONE)
                     : "memory", "cc");
}

static inline void flush_tlb_one(uint64_t va)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : "D"(va), PV_MMU_SITE(flush_tlb_one, PV_OP_FLUSH_TLB_ONE, PV_CLOBBER_NONE)
                     : "memory", "cc");
}

static inline void set_pte(uint64_t *ptep, uint64_t val)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : "D"(ptep), "S"(val), PV_MMU_SITE(set_pte, PV_OP_SET_PTE, PV_CLOBBER_NONE)
                     : "memory", "cc");
}

/* Tour 12: The pte story begins: start and commit.
 * Changing a pte's protection is read, modify, write. Between the read and
 * the write the CPU may set Accessed or Dirty in the entry, and a plain
 * write would lose them. So the change is split in two ops:
 * `ptep_modify_prot_start` returns the entry and (natively) clears it, and
 * `ptep_modify_prot_commit` writes the new one. Under Xen the pair becomes
 * hypercalls that can be batched, which is what made mprotect fast again. */
static inline uint64_t ptep_modify_prot_start(uint64_t *ptep)
{
    uint64_t old;
    __asm__ volatile(PV_INDIRECT_CALL
                     : "=a"(old)
                     : "D"(ptep), PV_MMU_SITE(ptep_modify_prot_start, PV_OP_PTEP_MODIFY_PROT_START,
                                              PV_CLOBBER_RAX)
                     : "memory", "cc");
    return old;
}

static inline void ptep_modify_prot_commit(uint64_t *ptep, uint64_t val)
{
    __asm__ volatile(
        PV_INDIRECT_CALL
        :
        : "D"(ptep), "S"(val),
          PV_MMU_SITE(ptep_modify_prot_commit, PV_OP_PTEP_MODIFY_PROT_COMMIT, PV_CLOBBER_NONE)
        : "memory", "cc");
}

static inline void enter_lazy_mmu(void)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : PV_MMU_SITE(enter_lazy_mmu, PV_OP_ENTER_LAZY_MMU, PV_CLOBBER_NONE)
                     : "memory", "cc");
}

static inline void leave_lazy_mmu(void)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : PV_MMU_SITE(leave_lazy_mmu, PV_OP_LEAVE_LAZY_MMU, PV_CLOBBER_NONE)
                     : "memory", "cc");
}

/* Not call sites: they run once per new page table, so a plain call
 * through the table costs nothing worth patching. */
static inline void make_page_table(uint64_t pa, int level)
{
    pv_mmu_ops.make_page_table(pa, level);
}

static inline void set_table_entry(uint64_t *entryp, uint64_t val)
{
    pv_mmu_ops.set_table_entry(entryp, val);
}

#else /* !CONFIG_PARAVIRT: exactly the native templates of arch/x86/native_patch.c */

static inline uint64_t read_cr3(void)
{
    uint64_t v;
    __asm__ volatile(PV_NATIVE_SITE("mov %%cr3, %%rax")
                     : "=a"(v)
                     : PV_NATIVE_OPERANDS(PV_OP_READ_CR3)
                     : "memory");
    return v;
}

static inline void write_cr3(uint64_t v)
{
    __asm__ volatile(PV_NATIVE_SITE("mov %%rdi, %%cr3")
                     :
                     : "D"(v), PV_NATIVE_OPERANDS(PV_OP_WRITE_CR3)
                     : "memory");
}

static inline void flush_tlb_one(uint64_t va)
{
    __asm__ volatile(PV_NATIVE_SITE("invlpg (%%rdi)")
                     :
                     : "D"(va), PV_NATIVE_OPERANDS(PV_OP_FLUSH_TLB_ONE)
                     : "memory");
}

static inline void set_pte(uint64_t *ptep, uint64_t val)
{
    __asm__ volatile(PV_NATIVE_SITE("mov %%rsi, (%%rdi)")
                     :
                     : "D"(ptep), "S"(val), PV_NATIVE_OPERANDS(PV_OP_SET_PTE)
                     : "memory");
}

/* Clearing the entry while it is changed keeps the CPU from setting
 * Accessed/Dirty in a copy that the commit would then overwrite. */
static inline uint64_t ptep_modify_prot_start(uint64_t *ptep)
{
    uint64_t old;
    __asm__ volatile(PV_NATIVE_SITE("xor %%eax, %%eax\n\txchg %%rax, (%%rdi)")
                     : "=&a"(old)
                     : "D"(ptep), PV_NATIVE_OPERANDS(PV_OP_PTEP_MODIFY_PROT_START)
                     : "memory");
    return old;
}

static inline void ptep_modify_prot_commit(uint64_t *ptep, uint64_t val)
{
    __asm__ volatile(PV_NATIVE_SITE("mov %%rsi, (%%rdi)")
                     :
                     : "D"(ptep), "S"(val), PV_NATIVE_OPERANDS(PV_OP_PTEP_MODIFY_PROT_COMMIT)
                     : "memory");
}

/* No instructions, but a site record of length 0, so a test can match a
 * patched site's NOPs with it, and a compiler barrier, as the call is. */
static inline void enter_lazy_mmu(void)
{
    __asm__ volatile(PV_NATIVE_SITE("") : : PV_NATIVE_OPERANDS(PV_OP_ENTER_LAZY_MMU) : "memory");
}

static inline void leave_lazy_mmu(void)
{
    __asm__ volatile(PV_NATIVE_SITE("") : : PV_NATIVE_OPERANDS(PV_OP_LEAVE_LAZY_MMU) : "memory");
}

/* Natively a zeroed frame is a page table as it stands. */
static inline void make_page_table(uint64_t pa, int level)
{
    (void)pa, (void)level;
}

static inline void set_table_entry(uint64_t *entryp, uint64_t val)
{
    *(volatile uint64_t *)entryp = val;
}

#endif /* CONFIG_PARAVIRT */
#endif
