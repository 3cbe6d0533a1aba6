#include "mm/vma.h"

#include <stddef.h>

#include "mm/pgtable.h"

static bool page_aligned(uint64_t a)
{
    return (a & (PAGE_SIZE - 1)) == 0;
}

struct vma *vma_find(const struct vma_list *l, uint64_t addr)
{
    for (struct vma *a = l->head; a && a->start <= addr; a = a->next) {
        if (addr < a->end)
            return a;
    }
    return NULL;
}

struct vma *vma_find_range(const struct vma_list *l, uint64_t start, uint64_t end)
{
    struct vma *a = vma_find(l, start);

    if (start >= end || !a || end > a->end)
        return NULL;
    return a;
}

bool vma_insert(struct vma_list *l, struct vma *a)
{
    struct vma **link = &l->head;

    if (a->start >= a->end || !page_aligned(a->start) || !page_aligned(a->end))
        return false;
    while (*link && (*link)->end <= a->start)
        link = &(*link)->next;
    if (*link && (*link)->start < a->end)
        return false; /* the first area ending above a's start begins below a's end */
    a->next = *link;
    *link = a;
    return true;
}

bool vma_remove(struct vma_list *l, struct vma *a)
{
    for (struct vma **link = &l->head; *link; link = &(*link)->next) {
        if (*link == a) {
            *link = a->next;
            a->next = NULL;
            return true;
        }
    }
    return false;
}

/* Whether [start, start + len) fits in [lo, hi) without wrapping. */
static bool fits(uint64_t start, uint64_t len, uint64_t lo, uint64_t hi)
{
    return start >= lo && start <= hi && len <= hi - start;
}

uint64_t vma_find_free(const struct vma_list *l, uint64_t lo, uint64_t hi, uint64_t len,
                       uint64_t gap)
{
    uint64_t start = lo;

    if (len == 0 || lo >= hi)
        return 0;
    for (const struct vma *a = l->head; a; a = a->next) {
        if (a->end <= start && start - a->end >= gap)
            continue; /* entirely below the candidate, guard included */
        if (a->start >= gap) {
            uint64_t below = a->start - gap < hi ? a->start - gap : hi;
            if (fits(start, len, lo, below))
                return start;
        }
        if (a->end > UINT64_MAX - gap)
            return 0;
        start = a->end + gap;
    }
    return fits(start, len, lo, hi) ? start : 0;
}
