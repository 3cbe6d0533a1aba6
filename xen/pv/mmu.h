/* The choices xen.mmu=, xen.preserve_ad= and xen.pin= made (mmu.c), read
 * by the files of Xen PV's page-table ops once setup has run. */
#ifndef XEN_PV_MMU_H
#define XEN_PV_MMU_H

#include <stdbool.h>

enum xen_mmu_mode { XEN_MMU_TRAP, XEN_MMU_HYPERCALL, XEN_MMU_BATCH, XEN_MMU_SWAP };

extern int xen_mmu_mode;         /* enum xen_mmu_mode, xen.mmu= */
extern bool xen_mmu_preserve_ad; /* commits keep A/D through Xen; never in trap mode */
extern bool xen_mmu_pin_tables;  /* xen.pin=: pin each new page table */

#endif
