/* Reading Xen's PVH start info (struct hvm_start_info) into struct
 * boot_info, without trusting it: the structure, its memory map and the
 * command line must all lie inside the memory window given. */
#ifndef KERNEL_PVH_PARSE_H
#define KERNEL_PVH_PARSE_H

#include <stdint.h>

#include "kernel/boot_info.h"
#include "kernel/boot_mem.h"

/* The start info is at start_info_pa in mem. Adds the RAM of its memory
 * map and its command line to bi. Returns NULL, or one phrase saying why
 * the start info is unusable (bi may then be partly filled). */
const char *pvh_parse(const struct boot_mem *mem, uint64_t start_info_pa, struct boot_info *bi);

#endif
