/* The bookkeeping of memory areas: a list of page-aligned, disjoint
 * ranges sorted by address, and the search for a free range. Pure: no
 * page tables, no locks, no allocation (the caller owns each struct vma),
 * so the host unit tests compile it. mm/vm.c is the one kernel user. */
#ifndef MM_VMA_H
#define MM_VMA_H

#include <stdbool.h>
#include <stdint.h>

/* Called for a write to a present, read-only page of the area; returns
 * true once the page may be written, and the write is retried. */
typedef bool (*vma_fault_fn)(uint64_t addr, void *ctx);

struct vma {
    uint64_t start, end; /* [start, end), page-aligned */
    unsigned prot;       /* VM_* the area was mapped with; mprotect changes only ptes */
    vma_fault_fn on_fault;
    void *ctx;
    struct vma *next; /* the area above this one */
};

struct vma_list {
    struct vma *head; /* the lowest area; NULL when there is none */
};

/* The area holding addr, or NULL. */
struct vma *vma_find(const struct vma_list *l, uint64_t addr);

/* The area holding all of [start, end), or NULL (also for an empty range). */
struct vma *vma_find_range(const struct vma_list *l, uint64_t start, uint64_t end);

/* Adds a, keeping the list sorted. False, changing nothing, if a is empty,
 * not page-aligned or overlaps an area already there. */
bool vma_insert(struct vma_list *l, struct vma *a);

/* False if a is not on the list. */
bool vma_remove(struct vma_list *l, struct vma *a);

/* The lowest page-aligned start of len bytes inside [lo, hi) that stays
 * `gap` bytes clear of every area (an unmapped guard between neighbours),
 * or 0 when none fits. lo, hi, len and gap must be page-aligned. */
uint64_t vma_find_free(const struct vma_list *l, uint64_t lo, uint64_t hi, uint64_t len,
                       uint64_t gap);

#endif
