/* Questions about the live kernel map, answered by walking it. */
#include "mm/kernel_map.h"

#include "mm/pt_walk.h"
#include "pv/mmu.h"

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
