/* x86-64 4-level page table entries (Intel SDM vol. 3, 4.5). */
#ifndef MM_PGTABLE_H
#define MM_PGTABLE_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t pte_t;

#define PTE_P (1ULL << 0)
#define PTE_W (1ULL << 1)
#define PTE_U (1ULL << 2)
#define PTE_PWT (1ULL << 3)
#define PTE_PCD (1ULL << 4)
#define PTE_A (1ULL << 5)
#define PTE_D (1ULL << 6)
#define PTE_PS (1ULL << 7) /* in a PDPT or PD entry: a 1 GiB or 2 MiB page */
#define PTE_G (1ULL << 8)
#define PTE_NX (1ULL << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ULL

#define PAGE_SIZE 4096ULL
#define LARGE_PAGE_SIZE (2ULL << 20)
#define PT_ENTRIES 512

/* Where the kernel reads the frame at pseudo-physical pa: every platform
 * maps all of RAM at VA == PA (linker.ld links the image that way too). */
static inline void *phys_to_virt(uint64_t pa)
{
    return (void *)pa;
}

/* Level 4 is the PML4, level 1 the page table that maps 4 KiB pages. */
static inline unsigned pt_index(uint64_t va, int level)
{
    return (va >> (12 + 9 * (level - 1))) & 0x1ff;
}

static inline uint64_t pte_addr(pte_t e)
{
    return e & PTE_ADDR_MASK;
}

static inline bool pte_present(pte_t e)
{
    return e & PTE_P;
}

static inline bool pte_writable(pte_t e)
{
    return e & PTE_W;
}

static inline bool pte_executable(pte_t e)
{
    return !(e & PTE_NX);
}

static inline bool pte_is_leaf(pte_t e, int level)
{
    return level == 1 || (level < 4 && (e & PTE_PS));
}

#endif
