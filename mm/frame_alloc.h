/* The physical page-frame allocator: a bitmap over the boot memory map,
 * one bit per 4 KiB frame below FRAME_MAX_PHYS. Physical address 0 is never
 * handed out, so 0 can mean "no frame". */
#ifndef MM_FRAME_ALLOC_H
#define MM_FRAME_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_SIZE 4096ULL
#define FRAME_MAX_PHYS (8ULL << 30) /* frames above this are ignored (and counted) */

struct mem_range {
    uint64_t base, len;
};

/* usable: RAM from the boot memory map, in any order, possibly overlapping
 * and unaligned (rounded inward). reserved: never handed out (rounded
 * outward). Calling it again starts over. */
void frame_alloc_init(const struct mem_range *usable, size_t nusable,
                      const struct mem_range *reserved, size_t nreserved);

/* The physical address of a free frame, or 0 when none is left. */
uint64_t frame_alloc(void);

/* The first of n free frames in a row, physically contiguous, or 0 when
 * no such run is left: for a buffer a device reads as one. */
uint64_t frame_alloc_run(uint64_t n);

/* A free frame that ends at or below limit, or 0; for users that need low
 * memory (boot-mapped page tables, DMA). */
uint64_t frame_alloc_below(uint64_t limit);

/* False, changing nothing, unless pa is an allocated frame's address. */
bool frame_free(uint64_t pa);

uint64_t frames_free(void);
uint64_t frames_total(void);        /* usable frames managed, after reservations */
uint64_t frame_bytes_ignored(void); /* usable bytes above FRAME_MAX_PHYS */

/* Whether the frame holding address pa is free. */
bool frame_is_free(uint64_t pa);

#endif
