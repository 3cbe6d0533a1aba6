#include "xen/grant_refs.h"

/* An entry in use is marked apart from every free one, so a double free
 * is told from a free. Reserved entries are marked in use forever. */
#define IN_USE (UINT32_MAX - 1)

void grant_refs_init(struct grant_refs *g, uint32_t *next, uint32_t nr, uint32_t reserved)
{
    g->next = next;
    g->nr = nr;
    g->reserved = reserved;
    g->head = GRANT_REF_NONE;
    g->nfree = 0;
    for (uint32_t ref = 0; ref < nr && ref < reserved; ref++)
        next[ref] = IN_USE;
    for (uint32_t ref = nr; ref-- > reserved;) {
        next[ref] = g->head;
        g->head = ref;
        g->nfree++;
    }
}

uint32_t grant_ref_alloc(struct grant_refs *g)
{
    uint32_t ref = g->head;

    if (ref == GRANT_REF_NONE)
        return GRANT_REF_NONE;
    g->head = g->next[ref];
    g->next[ref] = IN_USE;
    g->nfree--;
    return ref;
}

/* Reserved entries are marked in use too: they are refused by index. */
bool grant_ref_free(struct grant_refs *g, uint32_t ref)
{
    if (ref < g->reserved || ref >= g->nr || g->next[ref] != IN_USE)
        return false;
    g->next[ref] = g->head;
    g->head = ref;
    g->nfree++;
    return true;
}
