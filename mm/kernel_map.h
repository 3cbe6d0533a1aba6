/* The kernel's own address space: building it and asking questions of it. */
#ifndef MM_KERNEL_MAP_H
#define MM_KERNEL_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/ops.h"

struct boot_info;

/* Linker symbols bounding the image and its permission regions (linker.ld). */
extern char __kernel_start[], __kernel_end[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_start[], __bss_end[];
extern char boot_stack_guard[], boot_stack_bottom[], boot_stack_top[];

/* Guard pages: pages inside the image that every kernel map leaves
 * unmapped, so running off the end of a stack faults at once. Declared
 * where the stack is, collected in section guard_pages (linker.ld). */
struct guard_region {
    const void *first; /* the first guard page */
    uint64_t stride;   /* bytes from one guard page to the next */
    uint64_t count;
};

#define GUARD_PAGES(name, first_, stride_, count_)                                                 \
    static const struct guard_region guard_region_##name                                           \
        __attribute__((section("guard_pages"), used, aligned(8))) = {                              \
            .first = (first_), .stride = (stride_), .count = (count_)}

extern const struct guard_region __start_guard_pages[], __stop_guard_pages[];

bool is_guard_page(uint64_t va);

/* The backend's final page tables: RAM at VA == PA, the image W^X, guard
 * pages unmapped (arch/x86/native/kernel_map.c, xen/pv/kernel_map.c). */
static inline void kernel_map_init(const struct boot_info *bi)
{
    pv_mmu_ops.kernel_map_init(bi);
}

/* Maps the device registers at physical [pa, pa + len) into the live
 * kernel map at VA == PA, uncached, writable and never executable;
 * returns their address, or NULL if a page there is already mapped as
 * something else or no frame is left for a table. */
volatile void *kernel_map_mmio(uint64_t pa, uint64_t len);

/* Walks the live page tables: is every byte of [va, va + len) mapped? */
bool kernel_map_is_readable(uint64_t va, size_t len);

/* Walks the live page tables: the entry that maps va (any level), or 0. */
uint64_t kernel_map_leaf(uint64_t va);

/* Walks the live page tables: how many 4 KiB pages are writable and executable? */
uint64_t kernel_map_count_wx(void);

#endif
