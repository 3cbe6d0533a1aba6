/* The Dirty bit across mprotect, the bug the start/commit pair exists to
 * prevent: if the CPU sets D in a pte between the read of the entry and
 * the write of its new value, a plain write loses it, and the page's
 * changes could be dropped instead of written back. */
#include "kernel/main.h"

#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "mm/vm.h"
#include "mm/vm_internal.h"
#include "pv/irq.h"
#include "pv/mmu.h"

static bool dirty_test;
OPTION_BOOL(dirty_test, "mm.dirtytest", "check that mprotect keeps a page's dirty bit");

/* The race itself, forced. Either start leaves the entry not present, so
 * nothing can set D before the commit (native, and Xen without
 * MMU_PT_UPDATE_PRESERVE_AD), or the entry stays live, and then a write
 * between start and commit must still be dirty afterwards. */
static void check_write_between_start_and_commit(volatile uint64_t *page)
{
    vm_lock_take();
    unsigned long flags = irq_save();
    pte_t *ptep = vm_pt_entry((uint64_t)page, false);
    pte_t old, after;
    bool live;

    enter_lazy_mmu();
    old = ptep_modify_prot_start(ptep);
    live = pte_present(__atomic_load_n(ptep, __ATOMIC_RELAXED));
    if (live)
        *page = 1; /* the CPU sets D in the live entry */
    ptep_modify_prot_commit(ptep, pte_modify_prot(old, VM_READ));
    flush_tlb_one((uint64_t)page);
    leave_lazy_mmu();
    after = *ptep;
    irq_restore(flags);
    vm_lock_release();

    if (old & PTE_D)
        panic("mm: dirty test: a page never written was already dirty (pte 0x%lx)", old);
    if (live && !(after & PTE_D))
        panic("mm: a write between start and commit lost its dirty bit (pte 0x%lx)", after);
    kprintf(live ? "mm: start left the pte live; a write before the commit stayed dirty\n"
                 : "mm: start cleared the pte; nothing could dirty it before the commit\n");
}

/* The ordinary case: written while writable, then made read-only. */
static void check_mprotect_keeps_dirty(volatile uint64_t *page)
{
    pte_t e;

    if (mprotect((void *)page, PAGE_SIZE, VM_READ | VM_WRITE) != 0)
        panic("mm: dirty test: mprotect read-write failed");
    *page = 2;
    if (mprotect((void *)page, PAGE_SIZE, VM_READ) != 0)
        panic("mm: dirty test: mprotect read-only failed");
    e = vm_pte((const void *)page);
    if (!(e & PTE_D) || pte_writable(e))
        panic("mm: dirty bit lost across mprotect (pte 0x%lx)", e);
    kprintf("mm: dirty bit kept across mprotect\n");
}

void mm_dirty_test(void)
{
    volatile uint64_t *page;

    if (!dirty_test)
        return;
    page = vm_map(PAGE_SIZE, VM_READ | VM_WRITE, NULL, NULL);
    if (!page)
        panic("mm: dirty test: cannot map a page");
    check_write_between_start_and_commit(page);
    check_mprotect_keeps_dirty(page);
    if (!vm_unmap((void *)page))
        panic("mm: dirty test: cannot unmap its page");
}
