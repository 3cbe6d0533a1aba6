/* Replacing a whole L1 table at once: an mprotect that covers all 512
 * pages of one table builds their new entries in a fresh frame and links
 * it in place of the old table, where the backend prefers that to 512
 * entry updates (swaps_whole_tables(); xen.mmu=swap, docs/mm.md). */
#ifndef MM_TABLE_SWAP_H
#define MM_TABLE_SWAP_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/pgtable.h"

struct table_swap {
    pte_t *l2e;      /* the entry that links the table */
    uint64_t old_pa; /* the table it linked */
    uint64_t new_pa; /* the copy that replaces it */
};

/* Copies the L1 that maps [va, va + 2 MiB) into a fresh frame, each entry
 * with the rights prot. False, with nothing changed, when no frame is
 * free or a page of the range is not mapped. Caller holds vm_lock. */
bool table_swap_copy(struct table_swap *s, uint64_t va, unsigned prot);

/* Links the copy in place of the old table, which TLBs may go on walking
 * (and setting A/D bits in) until every CPU has flushed the range. */
void table_swap_link(const struct table_swap *s);

/* Once every CPU has flushed the range: moves into the new table the A/D
 * bits CPUs set in the old one after the copy, then frees the old one. */
void table_swap_finish(const struct table_swap *s);

#endif
