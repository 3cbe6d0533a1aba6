/* The one page-table walker: the kernel map, the memory areas, the W^X
 * check and both backends' boot maps all go through pt_walk(). */
#ifndef MM_PT_WALK_H
#define MM_PT_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/exit.h"
#include "mm/pgtable.h"
#include "pv/mmu.h"

/* What the walk found on its way to the entry it returns. */
struct pt_walk {
    int level;       /* of that entry: 4 is the PML4, 1 the page table */
    bool writable;   /* every entry on the way, that one included, allows writes */
    bool executable; /* and none of them sets NX (Intel SDM vol. 3, 4.6) */
};

#define PT_NO_ALLOC 0           /* alloc_below: stop at a missing table */
#define PT_ALLOC_ANY UINT64_MAX /* alloc_below: make it from any free frame */

/* A new, empty level-`level` table linked in at *entryp, from a frame
 * below alloc_below (or any, PT_ALLOC_ANY); false when none is left. */
bool pt_add_table(pte_t *entryp, int level, uint64_t alloc_below);

/* Where the kernel reads the table an entry holds the machine address of:
 * the backend's memory model (pv/mmu.h) gives the pseudo-physical
 * address, where RAM is mapped on every platform. */
static inline pte_t *pt_table_at(uint64_t maddr)
{
    return phys_to_virt(maddr_to_phys(maddr & PTE_ADDR_MASK));
}

/* Walks the tables under root (a machine address) toward va's entry at
 * `level`, stopping early at an entry that is not present or maps a large
 * page. With alloc_below other than PT_NO_ALLOC a missing table is made on
 * the way, from a frame below that physical address, so only a large page
 * stops it early. Returns the entry where it stopped, its level in *w;
 * NULL when no frame was left for a table. */
/* Inline, so each caller's constant level and alloc_below fold away:
 * mprotect walks once per 2 MiB of pages. The rights are those of every
 * entry on the way at once: the AND of the entries has W only if each
 * allows writes, their OR has NX if any forbids execution. */
static inline pte_t *pt_walk(uint64_t root, uint64_t va, int level, uint64_t alloc_below,
                             struct pt_walk *w)
{
    pte_t *table = pt_table_at(root), *entryp;
    pte_t all = ~(pte_t)0, any = 0;
    int l;

    for (l = 4;; l--) {
        entryp = &table[pt_index(va, l)];
        if (l == level)
            break;
        if (!pte_present(*entryp)) {
            if (alloc_below == PT_NO_ALLOC)
                break;
            if (!pt_add_table(entryp, l - 1, alloc_below))
                return NULL;
        }
        if (pte_is_leaf(*entryp, l))
            break;
        all &= *entryp;
        any |= *entryp;
        table = pt_table_at(pte_addr(*entryp));
    }
    all &= *entryp; /* the entry it stopped at */
    any |= *entryp;
    *w = (struct pt_walk){
        .level = l, .writable = pte_writable(all), .executable = pte_executable(any)};
    return entryp;
}

/* The level-1 entry for va under root, made on the way as alloc_below
 * says; NULL when a table is missing (or no frame was left). Panics if a
 * large page maps va, where 4 KiB pages are expected. */
static inline pte_t *pt_l1_entry(uint64_t root, uint64_t va, uint64_t alloc_below)
{
    struct pt_walk w;
    pte_t *e = pt_walk(root, va, 1, alloc_below, &w);

    if (e && w.level != 1 && pte_present(*e))
        panic("mm: a large page maps 0x%lx, where 4 KiB pages are expected", va);
    return e && w.level == 1 ? e : NULL;
}

/* The bytes one entry of a level-`level` table maps. */
static inline uint64_t pt_level_size(int level)
{
    return 1ULL << (12 + 9 * (level - 1));
}

#endif
