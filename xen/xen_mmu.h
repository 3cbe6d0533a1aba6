/* Xen's page-table ops (xen/xen_mmu.c). */
#ifndef XEN_XEN_MMU_H
#define XEN_XEN_MMU_H

#include "pv/ops.h"

extern const struct pv_mmu_ops xen_mmu_ops;

/* Before the table is installed: the multicall buffer and CR3's value. */
void xen_mmu_init(void);

/* Once the command line is read (xen.mmu=, xen.preserve_ad=): asks Xen
 * for what the chosen mode needs and prints one line saying what it is. */
void xen_mmu_mode_init(void);

#endif
