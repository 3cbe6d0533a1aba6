#include "mm/guard_pages.h"

#include "mm/kernel_map.h"

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
