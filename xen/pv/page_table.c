/* Page tables under Xen: a frame made a page table and released again,
 * pinned or not (xen.pin=), entries above L1 written, the choice of
 * swapping whole tables, and the memory model: a PV guest's entries hold
 * machine frames, not its own. */
#include <stdbool.h>

#include "mm/mm_stats.h"
#include "mm/pgtable.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"
#include "xen/pv/mmu.h"
#include "xen/pv/mmu_batch.h"

/* Our one mapping of frame pa (VA == PA): read-only while it is a page
 * table, writable data once it is not. */
static void map_frame(uint64_t pa, bool writable, const char *what)
{
    uint64_t flags = PTE_P | PTE_A | PTE_NX | (writable ? PTE_W | PTE_D : 0);

    mm_stats_add(MM_HYPERCALLS, 1);
    xen_must(HYPERVISOR_update_va_mapping(pa, virt_to_maddr((void *)pa) | flags, UVMF_INVLPG),
             what);
}

/* A pin or unpin (xen.pin=on) of the table at pa, issued at once. */
static void pin_op(unsigned cmd, uint64_t pa)
{
    struct mmuext_op op = {.cmd = cmd, .arg1.mfn = virt_to_maddr((void *)pa) >> 12};

    xen_mmuext(&op);
    xen_mmu_flush_queue();
}

/* Xen ABI: a frame may become a page table only while nothing maps it
 * writable, and its one mapping is ours at VA == PA. Unpinned, linking
 * it into a live table makes Xen validate and type it, and the link keeps
 * it typed. Pinned (xen.pin=on, as Linux does), Xen validates and types
 * it now and keeps it so until unpinned, linked or not: a table whose last
 * link goes away is otherwise unvalidated, its entries' references
 * dropped, and validated again when next linked. Anything queued goes
 * first, to keep every update in program order. */
void xen_make_page_table(uint64_t pa, int level)
{
    static const unsigned pin_cmd[] = {0, MMUEXT_PIN_L1_TABLE, MMUEXT_PIN_L2_TABLE,
                                       MMUEXT_PIN_L3_TABLE, MMUEXT_PIN_L4_TABLE};

    xen_mmu_flush_queue();
    map_frame(pa, false, "update_va_mapping page table read-only");
    if (xen_mmu_pin_tables && level >= 1 && level <= 4)
        pin_op(pin_cmd[level], pa);
}

/* The inverse of xen_make_page_table, for a table no link holds any more:
 * unpinned, Xen already unvalidated it when its last link went. Xen ABI:
 * retyping the frame as writable makes Xen flush any TLB that may still
 * walk it, so the frame can be reused at once. */
void xen_release_page_table(uint64_t pa, int level)
{
    xen_mmu_flush_queue();
    if (xen_mmu_pin_tables && level >= 1 && level <= 4)
        pin_op(MMUEXT_UNPIN_TABLE, pa);
    map_frame(pa, true, "update_va_mapping released page table writable");
}

bool xen_swaps_whole_tables(void)
{
    return xen_mmu_mode == XEN_MMU_SWAP;
}

/* Always a hypercall, in every mode: Xen emulates stores to L1 tables
 * only. Anything queued goes first, in program order. */
void xen_set_table_entry(uint64_t *entryp, uint64_t val)
{
    xen_mmu_flush_queue();
    xen_mmu_update_entry(entryp, val, MMU_NORMAL_PT_UPDATE, false);
}

/* Xen ABI: a PV guest's entries hold machine frames, not its own. */
uint64_t xen_phys_to_maddr(uint64_t pa)
{
    return virt_to_maddr((const void *)pa); /* VIRT_BASE 0: the same address */
}

/* Through Xen's machine-to-phys table: every frame a table can hold is ours. */
uint64_t xen_maddr_to_phys(uint64_t maddr)
{
    return (mfn_to_pfn(maddr >> 12) << 12) | (maddr & 0xfff);
}
