/* The native page-table ops, as plain C behind callee-save thunks: what an
 * unpatched site calls. Patched, each site holds the same instructions
 * inline (arch/x86/native_patch.c). */
#include <stdint.h>

#include "arch/x86/cpu.h"
#include "arch/x86/native_mmu.h"
#include "pv/call.h"
#include "pv/ops.h"

PV_THUNKED uint64_t native_read_cr3_fn(void)
{
    return native_read_cr3();
}

PV_THUNKED void native_write_cr3_fn(uint64_t v)
{
    native_write_cr3(v);
}

PV_THUNKED void native_flush_tlb_one(uint64_t va)
{
    invlpg(va);
}

PV_THUNKED void native_set_pte(uint64_t *ptep, uint64_t val)
{
    *(volatile uint64_t *)ptep = val;
}

/* Clears the entry so the CPU cannot set A/D in it until the commit. */
PV_THUNKED uint64_t native_ptep_modify_prot_start(uint64_t *ptep)
{
    return __atomic_exchange_n(ptep, 0, __ATOMIC_SEQ_CST);
}

PV_THUNKED void native_ptep_modify_prot_commit(uint64_t *ptep, uint64_t val)
{
    *(volatile uint64_t *)ptep = val;
}

/* Natively every update takes effect at once: nothing to batch. */
PV_THUNKED void native_lazy_mmu_nop(void)
{
}

/* A zeroed frame is a valid, empty table as it stands. */
PV_THUNKED void native_make_page_table(uint64_t pa, int level)
{
    (void)pa, (void)level;
}

PV_THUNKED void native_set_table_entry(uint64_t *entryp, uint64_t val)
{
    *(volatile uint64_t *)entryp = val;
}

uint64_t native_pv_read_cr3(void);
void native_pv_write_cr3(uint64_t);
void native_pv_flush_tlb_one(uint64_t);
void native_pv_set_pte(uint64_t *, uint64_t);
uint64_t native_pv_ptep_modify_prot_start(uint64_t *);
void native_pv_ptep_modify_prot_commit(uint64_t *, uint64_t);
void native_pv_lazy_mmu_nop(void);
void native_pv_make_page_table(uint64_t, int);
void native_pv_set_table_entry(uint64_t *, uint64_t);

PV_THUNK_RET(native_pv_read_cr3, native_read_cr3_fn);
PV_THUNK_VOID(native_pv_write_cr3, native_write_cr3_fn);
PV_THUNK_VOID(native_pv_flush_tlb_one, native_flush_tlb_one);
PV_THUNK_VOID(native_pv_set_pte, native_set_pte);
PV_THUNK_RET(native_pv_ptep_modify_prot_start, native_ptep_modify_prot_start);
PV_THUNK_VOID(native_pv_ptep_modify_prot_commit, native_ptep_modify_prot_commit);
PV_THUNK_VOID(native_pv_lazy_mmu_nop, native_lazy_mmu_nop);
PV_THUNK_VOID(native_pv_make_page_table, native_make_page_table);
PV_THUNK_VOID(native_pv_set_table_entry, native_set_table_entry);

const struct pv_mmu_ops native_mmu_ops = {
    .read_cr3 = native_pv_read_cr3,
    .write_cr3 = native_pv_write_cr3,
    .flush_tlb_one = native_pv_flush_tlb_one,
    .set_pte = native_pv_set_pte,
    .ptep_modify_prot_start = native_pv_ptep_modify_prot_start,
    .ptep_modify_prot_commit = native_pv_ptep_modify_prot_commit,
    .enter_lazy_mmu = native_pv_lazy_mmu_nop,
    .leave_lazy_mmu = native_pv_lazy_mmu_nop,
    .make_page_table = native_pv_make_page_table,
    .set_table_entry = native_pv_set_table_entry,
};
