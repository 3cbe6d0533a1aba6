/* The PVH entry path, in C: boot/pvh.asm has brought us to long mode with
 * the physical address of Xen's struct hvm_start_info. */
#include <stdint.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

#include "arch/x86/native/backend.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"

static void pvh_read_memmap(const struct hvm_start_info *si)
{
    const struct hvm_memmap_table_entry *map = (const void *)(uintptr_t)si->memmap_paddr;

    for (uint32_t i = 0; i < si->memmap_entries; i++) {
        if (map[i].type == XEN_HVM_MEMMAP_TYPE_RAM)
            boot_info_add_ram(&boot_info, map[i].addr, map[i].size);
    }
}

void pvh_start(uint32_t start_info_pa, uint32_t unused)
{
    const struct hvm_start_info *si = (const void *)(uintptr_t)start_info_pa;

    (void)unused;
    native_install();
    boot_info.method = BOOT_NATIVE_PVH;
    if (si->magic != XEN_HVM_START_MAGIC_VALUE)
        panic("PVH start info at 0x%x has magic 0x%x", start_info_pa, si->magic);
    /* Version 1 added the memory map; without it we cannot know our RAM. */
    if (si->version < 1 || si->memmap_entries == 0)
        panic("PVH start info version %u has no memory map", si->version);
    pvh_read_memmap(si);
    if (si->cmdline_paddr)
        boot_info_set_cmdline(&boot_info, (const char *)(uintptr_t)si->cmdline_paddr,
                              BOOT_CMDLINE_MAX * 4);
    kernel_main();
}
