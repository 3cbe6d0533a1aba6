#ifndef MM_MM_INIT_H
#define MM_MM_INIT_H

struct boot_info;

/* Hands the boot memory map to the frame allocator, keeping out the low
 * 1 MiB, the kernel image and anything the loader still uses. */
void mm_init(const struct boot_info *bi);

#endif
