/* Grant table v1: the guest's table of pages it lets another domain (a
 * backend) map or copy. Both Xen backends share it; how its frames come to
 * be ours is each one's own (PV: GNTTABOP_setup_table hands us Xen's
 * frames; PVH: XENMEM_add_to_physmap puts them at frames we choose), set
 * by its install function. A save/restore or migration starts a new
 * domain with an empty table and new backends: no grant survives, so a
 * frontend issues its ring's and its pages' grants again as it reconnects,
 * into a table set up and mapped again for the new domain. */
#ifndef XEN_GRANT_TABLE_H
#define XEN_GRANT_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "xen/xen_public.h"

/* Xen's header of the same name: this file shadows it on the -I. path. */
#include_next <xen/grant_table.h>

#define GNTTAB_FRAMES 4 /* 2048 v1 entries: a ring, its data pages and indirect pages */

/* Makes the table's frames ours; fills frames[0..nr) with what a
 * page-table entry of ours holds for each (machine address under PV,
 * guest-physical under PVH). NULL or why not. */
typedef const char *(*gnttab_frames_fn)(unsigned nr, uint64_t *frames);

/* The backend's way; until one is set, gnttab_init() fails. */
void gnttab_use(gnttab_frames_fn fn);

/* Sets the table up and maps it, once, and registers its own part in a
 * suspend (kernel/lifecycle.h): unmapped before, set up and mapped again
 * after, every reference free in a new domain. NULL or why not. */
const char *gnttab_init(void);

/* Lets domid access the frame (xen_frame_of's number); returns the grant
 * reference, or GRANT_REF_NONE (xen/grant_refs.h) when none is free. */
grant_ref_t gnttab_grant(domid_t domid, uint64_t frame, bool readonly);

/* Ends the grant and frees its reference; false, changing nothing, while
 * the other domain still has it mapped. */
bool gnttab_end(grant_ref_t ref);

/* A copy of the entry as Xen sees it now, for blkfront.trace's lines. */
grant_entry_v1_t gnttab_peek(grant_ref_t ref);

/* References free now, for tests and messages. */
uint32_t gnttab_free_count(void);

#endif
