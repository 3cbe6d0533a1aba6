/* Walking page tables. Entries hold machine addresses; the backend's
 * memory model (pv/mmu.h) turns one back into a pseudo-physical address,
 * where RAM is mapped on every platform. New tables are made through the
 * mmu ops, which under Xen validate them and link them in by hypercall. */
#include "mm/pt_walk.h"

#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "pv/mmu.h"

/* Interior entries allow everything; the leaf decides. */
#define TABLE_ENTRY_FLAGS (PTE_P | PTE_W)

static pte_t *table_at(uint64_t maddr)
{
    return phys_to_virt(maddr_to_phys(maddr & PTE_ADDR_MASK));
}

/* A new, empty level-`level` table linked in at *entryp. */
static bool add_table(pte_t *entryp, int level, uint64_t alloc_below)
{
    uint64_t pa = alloc_below == PT_ALLOC_ANY ? frame_alloc() : frame_alloc_below(alloc_below);

    if (!pa)
        return false;
    memset(phys_to_virt(pa), 0, PAGE_SIZE);
    make_page_table(pa, level);
    set_table_entry(entryp, phys_to_maddr(pa) | TABLE_ENTRY_FLAGS);
    return true;
}

pte_t *pt_walk(uint64_t root, uint64_t va, int level, uint64_t alloc_below, struct pt_walk *w)
{
    pte_t *table = table_at(root);

    *w = (struct pt_walk){.level = 4, .writable = true, .executable = true};
    for (;; w->level--) {
        pte_t *entryp = &table[pt_index(va, w->level)];
        if (!pte_present(*entryp) && w->level > level && alloc_below != PT_NO_ALLOC &&
            !add_table(entryp, w->level - 1, alloc_below))
            return NULL;
        w->writable = w->writable && pte_writable(*entryp);
        w->executable = w->executable && pte_executable(*entryp);
        if (w->level == level || !pte_present(*entryp) || pte_is_leaf(*entryp, w->level))
            return entryp;
        table = table_at(pte_addr(*entryp));
    }
}
