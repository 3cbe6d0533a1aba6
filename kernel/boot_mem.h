/* A loader's data as the boot parsers see it: addresses [base, base + len)
 * are bytes[0 .. len). The kernel passes its identity map of low memory;
 * the host tests pass a buffer. Every pointer a loader hands over goes
 * through boot_mem_at(), so a bad one is an error, never a wild read. */
#ifndef KERNEL_BOOT_MEM_H
#define KERNEL_BOOT_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/string.h"

struct boot_mem {
    const uint8_t *bytes;
    uint64_t base;
    uint64_t len;
};

/* The bytes at addr, if all of [addr, addr + size) is inside; else NULL.
 * Overflow-safe: addr + size is never computed. */
static inline const uint8_t *boot_mem_at(const struct boot_mem *m, uint64_t addr, uint64_t size)
{
    if (addr < m->base || addr - m->base > m->len || size > m->len - (addr - m->base))
        return NULL;
    return m->bytes + (addr - m->base);
}

/* How many bytes from addr to the end of the window; 0 if addr is outside. */
static inline uint64_t boot_mem_avail(const struct boot_mem *m, uint64_t addr)
{
    if (addr < m->base || addr - m->base >= m->len)
        return 0;
    return m->len - (addr - m->base);
}

/* Loader structures need not be aligned for the host's buffers; memcpy
 * reads them the same either way. */
static inline uint32_t boot_load32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint64_t boot_load64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

#endif
