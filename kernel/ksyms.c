#include "kernel/ksyms.h"

#include <stddef.h>

/* Binary search for the last symbol at or below addr (the table is sorted). */
const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
    unsigned long lo = 0, hi = ksyms_count;

    while (lo < hi) {
        unsigned long mid = lo + (hi - lo) / 2;
        if (ksyms_table[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct ksym *s = &ksyms_table[lo - 1];
    if (s->size && addr >= s->addr + s->size)
        return NULL;
    *offset = addr - s->addr;
    return s->name;
}
