/* Boot-time patching of every paravirt call site (pv/site.h). */
#ifndef PV_PATCHING_H
#define PV_PATCHING_H

struct pv_backend;

/* Walks .pv_sites once and rewrites each site with what the backend
 * supplies (unless pv.patch=off); prints one summary line. Runs while the
 * text is still writable, before the kernel map makes it read-only. */
void pv_patch_all(const struct pv_backend *be);

/* The backend pv_patch_all() rewrote the sites with; NULL if it left them
 * alone (pv.patch=off) or has not run. */
const struct pv_backend *pv_patched_with(void);

#endif
