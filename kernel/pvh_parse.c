#include "kernel/pvh_parse.h"

#include <stddef.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

/* Version 0 ends before memmap_paddr: read that much before the version says more is there. */
#define PVH_V0_LEN offsetof(struct hvm_start_info, memmap_paddr)
/* A command line longer than boot_info keeps is cut there anyway; the
 * bound only stops the scan for a NUL that never comes. */
#define PVH_CMDLINE_SCAN (BOOT_CMDLINE_MAX * 4)

static const char *read_memmap(const struct boot_mem *mem, const struct hvm_start_info *si,
                               struct boot_info *bi)
{
    const uint64_t entry_len = sizeof(struct hvm_memmap_table_entry);
    const uint8_t *map = boot_mem_at(mem, si->memmap_paddr, si->memmap_entries * entry_len);

    if (!map)
        return "memory map outside memory";
    for (uint32_t i = 0; i < si->memmap_entries; i++) {
        struct hvm_memmap_table_entry e;
        memcpy(&e, map + i * entry_len, sizeof(e));
        if (e.type == XEN_HVM_MEMMAP_TYPE_RAM)
            boot_info_add_ram(bi, e.addr, e.size);
    }
    return NULL;
}

/* A NUL-terminated line from the window, cut where the window or the scan
 * bound ends. */
static const char *read_cmdline(const struct boot_mem *mem, uint64_t pa, struct boot_info *bi)
{
    uint64_t avail = boot_mem_avail(mem, pa);

    if (avail == 0)
        return "command line outside memory";
    boot_info_set_cmdline(bi, (const char *)boot_mem_at(mem, pa, 0),
                          avail < PVH_CMDLINE_SCAN ? (size_t)avail : PVH_CMDLINE_SCAN);
    return NULL;
}

const char *pvh_parse(const struct boot_mem *mem, uint64_t start_info_pa, bool memmap_optional,
                      struct boot_info *bi, struct pvh_start *out)
{
    struct hvm_start_info si = {0};
    const uint8_t *p = boot_mem_at(mem, start_info_pa, PVH_V0_LEN);
    const char *err;

    *out = (struct pvh_start){.found = false};
    if (!p)
        return "start info outside memory";
    memcpy(&si, p, PVH_V0_LEN);
    if (si.magic != XEN_HVM_START_MAGIC_VALUE)
        return "bad start info magic";
    *out = (struct pvh_start){
        .version = si.version, .flags = si.flags, .rsdp_paddr = si.rsdp_paddr, .found = true};
    if (si.cmdline_paddr) {
        err = read_cmdline(mem, si.cmdline_paddr, bi);
        if (err)
            return err;
    }
    /* Version 1 added the memory map; without it we cannot know our RAM. */
    if (si.version < 1)
        return memmap_optional ? NULL : "start info version 0 has no memory map";
    p = boot_mem_at(mem, start_info_pa, sizeof(si));
    if (!p)
        return "start info outside memory";
    memcpy(&si, p, sizeof(si));
    if (si.memmap_entries == 0)
        return "start info has no memory map";
    err = read_memmap(mem, &si, bi);
    if (err)
        return err;
    if (bi->nr_ram == 0)
        return "no RAM in the memory map";
    return NULL;
}
