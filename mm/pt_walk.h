/* The one page-table walker: the kernel map, the memory areas, the W^X
 * check and both backends' boot maps all go through pt_walk(). */
#ifndef MM_PT_WALK_H
#define MM_PT_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/pgtable.h"

/* What the walk found on its way to the entry it returns. */
struct pt_walk {
    int level;       /* of that entry: 4 is the PML4, 1 the page table */
    bool writable;   /* every entry on the way, that one included, allows writes */
    bool executable; /* and none of them sets NX (Intel SDM vol. 3, 4.6) */
};

#define PT_NO_ALLOC 0           /* alloc_below: stop at a missing table */
#define PT_ALLOC_ANY UINT64_MAX /* alloc_below: make it from any free frame */

/* Walks the tables under root (a machine address) toward va's entry at
 * `level`, stopping early at an entry that is not present or maps a large
 * page. With alloc_below other than PT_NO_ALLOC a missing table is made on
 * the way, from a frame below that physical address, so only a large page
 * stops it early. Returns the entry where it stopped, its level in *w;
 * NULL when no frame was left for a table. */
pte_t *pt_walk(uint64_t root, uint64_t va, int level, uint64_t alloc_below, struct pt_walk *w);

/* The bytes one entry of a level-`level` table maps. */
static inline uint64_t pt_level_size(int level)
{
    return 1ULL << (12 + 9 * (level - 1));
}

#endif
