/* The native kernel map: identity-mapped RAM, W^X, guard pages unmapped.
 * Replaces the 2 MiB boot tables of boot/long_mode.asm. */
#include <stdint.h>

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "mm/guard_pages.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"

#define BOOT_MAPPED_LIMIT (4ULL << 30) /* what the boot tables reach */

static pte_t *new_pml4;
static uint64_t nx_bit;

static pte_t *alloc_table(void)
{
    uint64_t pa = frame_alloc_below(BOOT_MAPPED_LIMIT);

    if (!pa)
        panic("out of memory for page tables");
    memset((void *)pa, 0, PAGE_SIZE);
    return (pte_t *)pa;
}

/* The table that entry idx of table points to, made on first use. Interior
 * entries allow everything; the leaf decides. */
static pte_t *next_table(pte_t *table, unsigned idx)
{
    if (!pte_present(table[idx]))
        table[idx] = (uint64_t)alloc_table() | PTE_P | PTE_W;
    else if (table[idx] & PTE_PS)
        panic("kernel map: a 4 KiB mapping inside a large page at index %u", idx);
    return (pte_t *)pte_addr(table[idx]);
}

static void map_page(uint64_t va, uint64_t flags, int leaf_level)
{
    pte_t *table = new_pml4;

    for (int level = 4; level > leaf_level; level--)
        table = next_table(table, pt_index(va, level));
    table[pt_index(va, leaf_level)] = va | flags | (leaf_level == 2 ? PTE_PS : 0);
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

void kernel_map_init_native(const struct boot_info *bi)
{
    if (!cpu_has_nx())
        panic("this CPU has no NX bit; patchbay needs it to keep pages W^X");
    nx_bit = PTE_NX;
    new_pml4 = alloc_table();
    for (size_t i = 0; i < bi->nr_ram; i++)
        map_ram(&bi->ram[i]);
    map_kernel_region(__kernel_start, __rodata_start, PTE_P);
    map_kernel_region(__rodata_start, __data_start, PTE_P | nx_bit);
    map_kernel_region(__data_start, __kernel_end, PTE_P | PTE_W | nx_bit);
    /* SDM 11.4.1: the APIC's registers are mapped strong uncacheable. */
    map_page(lapic_phys_base(), PTE_P | PTE_W | PTE_PCD | PTE_PWT | nx_bit, 1);
    native_write_cr3((uint64_t)new_pml4);
}
