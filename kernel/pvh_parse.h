/* Reading Xen's PVH start info (struct hvm_start_info) into struct
 * boot_info, without trusting it: the structure, its memory map and the
 * command line must all lie inside the memory window given. QEMU and Xen
 * both boot us through it; Xen's PVH dom0 builder writes version 0, which
 * has no memory map. */
#ifndef KERNEL_PVH_PARSE_H
#define KERNEL_PVH_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/boot_info.h"
#include "kernel/boot_mem.h"

/* The start info's own fields a door acts on. */
struct pvh_start {
    uint32_t version;
    uint32_t flags;      /* SIF_* (<xen/xen.h>): SIF_INITDOMAIN for Xen's dom0 */
    uint64_t rsdp_paddr; /* the ACPI RSDP, or 0: none given */
    bool found;          /* false: no start info at all, and the fields above are 0 */
};

/* The start info is at start_info_pa in mem. Adds the RAM of its memory
 * map and its command line to bi and fills *out. Without a memory map
 * (version 0) it is unusable unless memmap_optional: then bi gets no RAM
 * and the caller finds it elsewhere. Returns NULL, or one phrase saying
 * why the start info is unusable (bi may then be partly filled). *out is
 * always set: found once the magic is right, even if a later part is
 * unusable; zeroed and not found before that. */
const char *pvh_parse(const struct boot_mem *mem, uint64_t start_info_pa, bool memmap_optional,
                      struct boot_info *bi, struct pvh_start *out);

#endif
