/* Reading the live page tables. Entries hold machine addresses; the
 * platform says where a table can be read (identity natively, through
 * Xen's machine-to-phys table under Xen). */
#include "mm/kernel_map.h"

#include "mm/pgtable.h"
#include "pv/mmu.h"
#include "pv/platform_ops.h"

static const pte_t *table_at(uint64_t maddr)
{
    return platform_ops->maddr_to_virt(maddr & PTE_ADDR_MASK);
}

/* The leaf entry mapping va, or 0 when va is not mapped. */
static pte_t lookup_leaf(uint64_t va, int *leaf_level)
{
    const pte_t *table = table_at(read_cr3());

    for (int level = 4; level >= 1; level--) {
        pte_t e = table[pt_index(va, level)];
        if (!pte_present(e))
            return 0;
        if (pte_is_leaf(e, level)) {
            *leaf_level = level;
            return e;
        }
        table = table_at(pte_addr(e));
    }
    return 0;
}

uint64_t kernel_map_leaf(uint64_t va)
{
    int level;

    return lookup_leaf(va, &level);
}

bool kernel_map_is_readable(uint64_t va, size_t len)
{
    uint64_t page = va & ~(PAGE_SIZE - 1);
    int level;

    if (len == 0 || va + len < va)
        return false;
    if (!pv_mmu_ops.read_cr3) /* a trap before the backend installed its ops */
        return false;
    for (; page < va + len; page += PAGE_SIZE) {
        if (!lookup_leaf(page, &level))
            return false;
    }
    return true;
}

/* Effective rights: writable only if every level allows it, executable
 * only if no level sets NX (Intel SDM vol. 3, 4.6). */
static uint64_t count_wx(const pte_t *table, int level, bool w, bool x)
{
    uint64_t n = 0;

    if (!w && !x)
        return 0;
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        pte_t e = table[i];
        if (!pte_present(e))
            continue;
        bool ew = w && pte_writable(e), ex = x && pte_executable(e);
        if (pte_is_leaf(e, level)) {
            if (ew && ex)
                n += 1ULL << (9 * (level - 1));
        } else {
            n += count_wx(table_at(pte_addr(e)), level - 1, ew, ex);
        }
    }
    return n;
}

/* Only the lower half: the kernel lives there on every platform, and under
 * Xen the upper half belongs to the hypervisor, whose tables we cannot read. */
uint64_t kernel_map_count_wx(void)
{
    const pte_t *pml4 = table_at(read_cr3());
    uint64_t n = 0;

    for (unsigned i = 0; i < PT_ENTRIES / 2; i++) {
        if (pte_present(pml4[i]))
            n += count_wx(table_at(pte_addr(pml4[i])), 3, pte_writable(pml4[i]),
                          pte_executable(pml4[i]));
    }
    return n;
}
