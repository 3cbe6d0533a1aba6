/* The free list of grant references: which entries of the grant table are
 * ours to fill. Pure code over a caller's array, no hypercalls, so a host
 * test can drive it; xen/grant_table.c owns the table itself. */
#ifndef XEN_GRANT_REFS_H
#define XEN_GRANT_REFS_H

#include <stdbool.h>
#include <stdint.h>

#define GRANT_REF_NONE UINT32_MAX

struct grant_refs {
    uint32_t *next;    /* per entry: the next free one, or GRANT_REF_NONE / in use */
    uint32_t nr;       /* entries in the table */
    uint32_t reserved; /* entries [0, reserved) are never handed out */
    uint32_t head;     /* the first free entry, or GRANT_REF_NONE */
    uint32_t nfree;
};

/* Entries [reserved, nr) become free; next has nr slots. */
void grant_refs_init(struct grant_refs *g, uint32_t *next, uint32_t nr, uint32_t reserved);

/* A free entry, now in use, or GRANT_REF_NONE when none is left. */
uint32_t grant_ref_alloc(struct grant_refs *g);

/* Returns ref to the free list; false, changing nothing, unless ref is an
 * entry in use (reserved, out of range or already free). */
bool grant_ref_free(struct grant_refs *g, uint32_t ref);

#endif
