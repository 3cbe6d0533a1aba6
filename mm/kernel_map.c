/* Questions about the live kernel map, answered by walking it. */
#include "mm/kernel_map.h"

#include "mm/pt_walk.h"
#include "pv/mmu.h"

/* SDM 11.12.3: PCD and PWT with the default PAT select strong uncacheable,
 * the type device registers need (no merged or reordered accesses). */
#define MMIO_FLAGS (PTE_P | PTE_W | PTE_PCD | PTE_PWT | PTE_NX)

GUARD_PAGES(boot_stack, boot_stack_guard, 0, 1);

bool is_guard_page(uint64_t va)
{
    for (const struct guard_region *g = __start_guard_pages; g < __stop_guard_pages; g++) {
        for (uint64_t i = 0; i < g->count; i++) {
            if (va == (uint64_t)g->first + i * g->stride)
                return true;
        }
    }
    return false;
}

/* Only the lower half: the kernel lives there on every platform, and under
 * Xen the upper half belongs to the hypervisor, whose tables we cannot read. */
#define LOWER_HALF_END (1ULL << 47)

/* Out of line, so both queries share one copy of the inlined walk. */
__attribute__((noinline)) static pte_t live_leaf(uint64_t va)
{
    struct pt_walk w;
    pte_t e = *pt_walk(read_cr3(), va, 1, PT_NO_ALLOC, &w);

    return pte_present(e) ? e : 0;
}

uint64_t kernel_map_leaf(uint64_t va)
{
    return live_leaf(va);
}

bool kernel_map_is_readable(uint64_t va, size_t len)
{
    uint64_t page = va & ~(PAGE_SIZE - 1);

    if (len == 0 || va + len < va)
        return false;
    if (!pv_mmu_ops.read_cr3) /* a trap before the backend installed its ops */
        return false;
    for (; page < va + len; page += PAGE_SIZE) {
        if (!live_leaf(page))
            return false;
    }
    return true;
}

/* One walk per mapping: a walk that stops at a missing or large entry
 * skips everything that entry covers. */
uint64_t kernel_map_count_wx(void)
{
    uint64_t root = read_cr3(), n = 0;

    for (uint64_t va = 0; va < LOWER_HALF_END;) {
        struct pt_walk w;
        pte_t e = *pt_walk(root, va, 1, PT_NO_ALLOC, &w);
        uint64_t size = pt_level_size(w.level);

        if (pte_present(e) && w.writable && w.executable)
            n += size / PAGE_SIZE;
        va = (va & ~(size - 1)) + size;
    }
    return n;
}

/* Device memory is not RAM: the entry holds the bus address as it is,
 * never the RAM translation phys_to_maddr() makes. A page not present
 * before needs no TLB flush (SDM 4.10.2.3: only present entries are
 * cached), and the entry is written through set_pte, the backend's. */
volatile void *kernel_map_mmio(uint64_t pa, uint64_t len)
{
    uint64_t first = pa & ~(PAGE_SIZE - 1);

    if (len == 0 || pa + len < pa || pa + len > LOWER_HALF_END)
        return NULL;
    for (uint64_t page = first; page < pa + len; page += PAGE_SIZE) {
        pte_t *e = pt_l1_entry(read_cr3(), page, PT_ALLOC_ANY);
        pte_t want = page | MMIO_FLAGS;

        if (!e || (pte_present(*e) && (*e & ~(PTE_A | PTE_D)) != want))
            return NULL;
        if (!pte_present(*e))
            set_pte(e, want);
    }
    return (volatile void *)pa;
}
