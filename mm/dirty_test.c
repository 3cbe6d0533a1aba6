/* The Dirty bit across mprotect, the bug the start/commit pair exists to
 * prevent: if the CPU sets D in a pte between the read of the entry and
 * the write of its new value, a plain write loses it, and the page's
 * changes could be dropped instead of written back. A whole-table swap
 * (mm/table_swap.h) has the same window, from the copy to the flush. */
#include "kernel/main.h"

#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "mm/table_swap.h"
#include "mm/tlb.h"
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

/* The swap's window forced on every platform, whether or not its
 * mprotect swaps: the write lands in the old table after the copy, so
 * only table_swap_finish's merge can carry its D bit over. */
static void check_write_between_copy_and_swap(uint64_t table_area, volatile uint64_t *page)
{
    struct table_swap s;
    pte_t before, after;

    vm_lock_take();
    unsigned long flags = irq_save();
    before = *vm_pt_entry((uint64_t)page, false);
    if (!table_swap_copy(&s, table_area, VM_READ))
        panic("mm: dirty test: cannot copy the page table of a 2 MiB area");
    *page = 1; /* the CPU sets D in the old table */
    table_swap_link(&s);
    tlb_flush_range(table_area, table_area + LARGE_PAGE_SIZE);
    table_swap_finish(&s);
    after = *vm_pt_entry((uint64_t)page, false);
    irq_restore(flags);
    vm_lock_release();

    if (before & PTE_D)
        panic("mm: dirty test: a page never written was already dirty (pte 0x%lx)", before);
    if (!(after & PTE_D) || pte_writable(after))
        panic("mm: a write between a table's copy and its swap lost its dirty bit (pte 0x%lx)",
              after);
    kprintf("mm: a write between a table's copy and its swap stayed dirty\n");
}

/* The ordinary case: written while writable, then made read-only, as a
 * page of its own or in a whole table's worth, which swap mode swaps. */
static void check_mprotect_keeps_dirty(volatile uint64_t *page, size_t len)
{
    pte_t e;

    if (mprotect((void *)page, len, VM_READ | VM_WRITE) != 0)
        panic("mm: dirty test: mprotect read-write failed");
    *page = 2;
    if (mprotect((void *)page, len, VM_READ) != 0)
        panic("mm: dirty test: mprotect read-only failed");
    e = vm_pte((const void *)page);
    if (!(e & PTE_D) || pte_writable(e))
        panic("mm: dirty bit lost across mprotect (pte 0x%lx)", e);
    if (len == PAGE_SIZE)
        kprintf("mm: dirty bit kept across mprotect\n");
    else
        kprintf("mm: dirty bit kept across mprotect of a whole table (%s)\n",
                swaps_whole_tables() ? "swapped" : "entry by entry");
}

void mm_dirty_test(void)
{
    volatile uint64_t *page, *table_area;

    if (!dirty_test)
        return;
    page = vm_map(PAGE_SIZE, VM_READ | VM_WRITE, NULL, NULL);
    if (!page)
        panic("mm: dirty test: cannot map a page");
    check_write_between_start_and_commit(page);
    check_mprotect_keeps_dirty(page, PAGE_SIZE);
    if (!vm_unmap((void *)page))
        panic("mm: dirty test: cannot unmap its page");

    table_area = vm_map(LARGE_PAGE_SIZE, VM_READ | VM_WRITE, NULL, NULL);
    if (!table_area)
        panic("mm: dirty test: cannot map a 2 MiB area");
    check_write_between_copy_and_swap((uint64_t)table_area,
                                      table_area + PAGE_SIZE / sizeof(*table_area));
    check_mprotect_keeps_dirty(table_area, LARGE_PAGE_SIZE);
    if (!vm_unmap((void *)table_area))
        panic("mm: dirty test: cannot unmap its 2 MiB area");
}
