/* What the boot page tables of boot/long_mode.asm map, at VA == PA: the
 * low 4 GiB. Every PVH and multiboot2 path reads its loader's data and
 * the ACPI tables through this window, before the kernel map replaces
 * those tables. */
#ifndef ARCH_X86_BOOT_MAP_H
#define ARCH_X86_BOOT_MAP_H

#include <stdint.h>

#include "kernel/boot_mem.h"

/* QEMU puts the memory map in page 0, so the window starts just past
 * address 0 only to keep a null pointer out of it. */
#define BOOT_MAP_START 0x8ULL
#define BOOT_MAP_END (4ULL << 30)

static inline struct boot_mem boot_mem_low(void)
{
    return (struct boot_mem){(const uint8_t *)(uintptr_t)BOOT_MAP_START, BOOT_MAP_START,
                             BOOT_MAP_END - BOOT_MAP_START};
}

#endif
