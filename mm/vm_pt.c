/* The memory window's page tables, walked and built through the mmu ops.
 * Entries hold machine addresses; the platform says where a table can be
 * read (platform_ops->maddr_to_virt) and what an entry holds for a frame
 * (platform_ops->phys_to_maddr). */
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "mm/vm_internal.h"
#include "pv/mmu.h"
#include "pv/platform_ops.h"

/* Interior entries allow everything; the leaf decides. */
#define TABLE_ENTRY_FLAGS (PTE_P | PTE_W)

static pte_t *table_at(uint64_t maddr)
{
    return platform_ops->maddr_to_virt(maddr & PTE_ADDR_MASK);
}

/* A new, empty level-`level` table linked in at *entryp. */
static bool add_table(pte_t *entryp, int level)
{
    uint64_t pa = frame_alloc();

    if (!pa)
        return false;
    memset((void *)pa, 0, PAGE_SIZE); /* RAM is mapped at VA == PA */
    make_page_table(pa, level);
    set_table_entry(entryp, platform_ops->phys_to_maddr(pa) | TABLE_ENTRY_FLAGS);
    return true;
}

pte_t *vm_pt_entry(uint64_t va, bool create)
{
    pte_t *table = table_at(read_cr3());

    for (int level = 4; level > 1; level--) {
        pte_t *entryp = &table[pt_index(va, level)];
        if (!pte_present(*entryp) && !(create && add_table(entryp, level - 1)))
            return NULL;
        if (pte_is_leaf(*entryp, level))
            panic("mm: a large page maps 0x%lx, inside the memory window", va);
        table = table_at(pte_addr(*entryp));
    }
    return &table[pt_index(va, 1)];
}
