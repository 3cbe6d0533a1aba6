/* Native page tables: a frame becomes a table, and stops being one, with
 * nobody to tell; entries above L1 are plain stores; and entries hold
 * physical addresses, as there is nothing beneath us. The site ops that
 * write ptes are the registry's instructions (arch/x86/native/insns.c). */
#include "arch/x86/native/backend.h"

/* A zeroed frame is a valid, empty table as it stands. */
void native_make_page_table(uint64_t pa, int level)
{
    (void)pa, (void)level;
}

void native_set_table_entry(uint64_t *entryp, uint64_t val)
{
    *(volatile uint64_t *)entryp = val;
}

void native_release_page_table(uint64_t pa, int level)
{
    (void)pa, (void)level;
}

/* Per entry is cheaper here: a store each, where a new table costs a
 * copy of all 512 and a shootdown of the whole range. */
bool native_swaps_whole_tables(void)
{
    return false;
}

uint64_t native_phys_to_maddr(uint64_t pa)
{
    return pa;
}

uint64_t native_maddr_to_phys(uint64_t maddr)
{
    return maddr;
}
