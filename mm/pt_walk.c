/* Making a page table on the way of a walk (mm/pt_walk.h): through the
 * mmu ops, which under Xen validate the new table and link it in by
 * hypercall. */
#include "mm/pt_walk.h"

#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "pv/mmu.h"

/* Interior entries allow everything; the leaf decides. */
#define TABLE_ENTRY_FLAGS (PTE_P | PTE_W)

bool pt_add_table(pte_t *entryp, int level, uint64_t alloc_below)
{
    uint64_t pa = alloc_below == PT_ALLOC_ANY ? frame_alloc() : frame_alloc_below(alloc_below);

    if (!pa)
        return false;
    memset(phys_to_virt(pa), 0, PAGE_SIZE);
    make_page_table(pa, level);
    set_table_entry(entryp, phys_to_maddr(pa) | TABLE_ENTRY_FLAGS);
    return true;
}
