/* Guard pages: pages inside the image that every kernel map leaves
 * unmapped, so running off the end of a stack faults at once. Declared
 * where the stack is, collected in section guard_pages (linker.ld). */
#ifndef MM_GUARD_PAGES_H
#define MM_GUARD_PAGES_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
