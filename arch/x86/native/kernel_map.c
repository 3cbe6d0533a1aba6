/* The native kernel map: identity-mapped RAM, W^X, guard pages unmapped,
 * and the pages a hypervisor shares with us outside RAM (under Xen PVH,
 * whose page tables are ours too).
 * Replaces the 2 MiB boot tables of boot/long_mode.asm: built aside through
 * the walker, then switched to. */
#include <stdint.h>

#include "arch/x86/boot_map.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/native/backend.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "mm/kernel_map.h"
#include "mm/pt_walk.h"

#define BOOT_MAPPED_LIMIT BOOT_MAP_END /* what the boot tables reach */

static uint64_t new_root;
static uint64_t nx_bit;

/* Tables come from memory the boot tables already map, as the walk must
 * write them before the new map is live; until then a plain store is all
 * an entry needs. */
static void map_page(uint64_t va, uint64_t flags, int leaf_level)
{
    struct pt_walk w;
    pte_t *e = pt_walk(new_root, va, leaf_level, BOOT_MAPPED_LIMIT, &w);

    if (!e)
        panic("out of memory for page tables");
    if (w.level != leaf_level)
        panic("kernel map: a 4 KiB mapping at 0x%lx inside a large page", va);
    *e = va | flags | (leaf_level == 2 ? PTE_PS : 0);
}

/* Identity-maps [start, end), with 2 MiB pages where alignment allows. */
static void map_identity(uint64_t start, uint64_t end, uint64_t flags)
{
    start &= ~(PAGE_SIZE - 1);
    while (start < end) {
        if ((start & (LARGE_PAGE_SIZE - 1)) == 0 && end - start >= LARGE_PAGE_SIZE) {
            map_page(start, flags, 2);
            start += LARGE_PAGE_SIZE;
        } else {
            map_page(start, flags, 1);
            start += PAGE_SIZE;
        }
    }
}

static void map_kernel_region(char *start, char *end, uint64_t flags)
{
    for (uint64_t va = (uint64_t)start; va < (uint64_t)end; va += PAGE_SIZE) {
        if (!is_guard_page(va))
            map_page(va, flags, 1);
    }
}

/* RAM around the image, read-write and never executable; page 0 stays
 * unmapped so a null pointer faults. */
static void map_ram(const struct mem_range *r)
{
    uint64_t start = r->base < PAGE_SIZE ? PAGE_SIZE : r->base;
    uint64_t end = r->base + r->len;
    uint64_t kstart = (uint64_t)__kernel_start, kend = (uint64_t)__kernel_end;
    uint64_t flags = PTE_P | PTE_W | nx_bit;

    end &= ~(PAGE_SIZE - 1);
    if (start < kstart)
        map_identity(start, end < kstart ? end : kstart, flags);
    if (end > kend)
        map_identity(start > kend ? start : kend, end, flags);
}

void native_kernel_map_init(const struct boot_info *bi)
{
    if (!cpu_has_nx())
        panic("this CPU has no NX bit; patchbay needs it to keep pages W^X");
    nx_bit = PTE_NX;
    new_root = frame_alloc_below(BOOT_MAPPED_LIMIT);
    if (!new_root)
        panic("out of memory for page tables");
    memset(phys_to_virt(new_root), 0, PAGE_SIZE);
    for (size_t i = 0; i < bi->nr_ram; i++)
        map_ram(&bi->ram[i]);
    map_kernel_region(__kernel_start, __rodata_start, PTE_P);
    map_kernel_region(__rodata_start, __data_start, PTE_P | nx_bit);
    map_kernel_region(__data_start, __kernel_end, PTE_P | PTE_W | nx_bit);
    for (size_t i = 0; i < bi->nr_shared; i++)
        map_page(bi->shared[i].base, PTE_P | PTE_W | nx_bit, 1);
    /* SDM 11.4.1: the APIC's registers are mapped strong uncacheable. */
    map_page(lapic_phys_base(), PTE_P | PTE_W | PTE_PCD | PTE_PWT | nx_bit, 1);
    __asm__ volatile("mov %0, %%cr3" : : "r"(new_root) : "memory");
}
