/* The kernel map under Xen: Xen's bootstrap page tables, made W^X and
 * extended to map all of the domain's RAM at VA == pseudo-physical address.
 *
 * Xen ABI (PV memory management): page tables hold machine addresses; a
 * frame that is a page table must not be mapped writable anywhere, so the
 * guest writes table entries only through mmu_update (by the entry's
 * machine address) or update_va_mapping (by the virtual address it maps),
 * and Xen validates every entry it is asked to install. */
#include <stdint.h>

#include "kernel/boot_info.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "mm/guard_pages.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"
#include "pv/mmu.h"
#include "pv/platform_ops.h"
#include "xen/hypercall.h"
#include "xen/pv_guest.h"
#include "xen/xen_mmu.h"

#define MMU_BATCH 128 /* entries per mmu_update hypercall */

#define LEAF_TEXT (PTE_P | PTE_A)
#define LEAF_RODATA (PTE_P | PTE_A | PTE_NX)
#define LEAF_DATA (PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX)
#define LEAF_TABLE (PTE_P | PTE_A | PTE_NX) /* a page table's own mapping */
#define INTERIOR (PTE_P | PTE_W | PTE_U | PTE_A)

static struct mmu_update batch[MMU_BATCH];
static unsigned batch_len;

/* [0, mapped_end) is mapped: frames below it can be written before use. */
static uint64_t mapped_end;

/* The top-level table, read once: reading CR3 traps to Xen every time. */
static uint64_t pml4_maddr;

static void batch_flush(void)
{
    unsigned done = 0;

    if (batch_len == 0)
        return;
    xen_must(HYPERVISOR_mmu_update(batch, batch_len, &done, DOMID_SELF), "mmu_update");
    batch_len = 0;
}

static void batch_set(uint64_t entry_maddr, pte_t val)
{
    batch[batch_len++] = (struct mmu_update){.ptr = entry_maddr | MMU_NORMAL_PT_UPDATE, .val = val};
    if (batch_len == MMU_BATCH)
        batch_flush();
}

static pte_t read_entry(uint64_t entry_maddr)
{
    return *(const volatile pte_t *)platform_ops->maddr_to_virt(entry_maddr);
}

static uint64_t mfn_maddr(uint64_t pa)
{
    return pfn_to_mfn(pa >> 12) << 12;
}

/* The machine address of the level-`level` entry for va, or 0 when a
 * table above it is missing. */
static uint64_t entry_maddr(uint64_t va, int level)
{
    uint64_t table = pml4_maddr;

    for (int l = 4; l > level; l--) {
        pte_t e = read_entry(table + 8 * pt_index(va, l));
        if (!pte_present(e))
            return 0;
        if (pte_is_leaf(e, l))
            panic("xen: a large page maps %lx; PV guests have none", va);
        table = pte_addr(e);
    }
    return table + 8 * pt_index(va, level);
}

/* A frame the kernel can write now, for a new page table. */
static uint64_t alloc_table_frame(void)
{
    uint64_t pa = frame_alloc_below(mapped_end);

    if (!pa)
        panic("xen: out of mapped memory for page tables");
    return pa;
}

/* Filled while it is still ordinary writable memory, the table is made
 * read-only (Xen refuses a table with a writable mapping) and then hooked
 * into its parent entry, where Xen validates it. */
static void install_table(uint64_t parent_entry_maddr, uint64_t pa)
{
    xen_must(HYPERVISOR_update_va_mapping(pa, mfn_maddr(pa) | LEAF_TABLE, UVMF_INVLPG),
             "update_va_mapping table read-only");
    batch_set(parent_entry_maddr, mfn_maddr(pa) | INTERIOR);
    batch_flush();
}

/* The level-`level` entry for va, making empty tables above it as needed. */
static uint64_t ensure_entry(uint64_t va, int level)
{
    for (int l = 4; l > level; l--) {
        uint64_t parent = entry_maddr(va, l);
        if (!pte_present(read_entry(parent))) {
            uint64_t pa = alloc_table_frame();
            memset((void *)pa, 0, PAGE_SIZE);
            install_table(parent, pa);
        }
    }
    return entry_maddr(va, level);
}

static void raise_mapped_end(uint64_t end, uint64_t ram_end)
{
    end = end < ram_end ? end : ram_end;
    if (end > mapped_end)
        mapped_end = end;
}

/* Page 0 stays unmapped so a null pointer faults; guard pages likewise. */
static bool ram_page_mapped(uint64_t page, uint64_t ram_end)
{
    return page != 0 && page < ram_end && !is_guard_page(page);
}

/* The RAM entries of a new L1 table for [va, va + 2 MiB). */
static void fill_l1(pte_t *l1, uint64_t va, uint64_t ram_end)
{
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        uint64_t page = va + i * PAGE_SIZE;
        l1[i] = ram_page_mapped(page, ram_end) ? mfn_maddr(page) | LEAF_DATA : 0;
    }
}

/* Fills the gaps in an L1 table of Xen's bootstrap tables. */
static void complete_l1(uint64_t l1_maddr, uint64_t va, uint64_t ram_end)
{
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        uint64_t page = va + i * PAGE_SIZE, e = l1_maddr + 8 * i;
        if (ram_page_mapped(page, ram_end) && !pte_present(read_entry(e)))
            batch_set(e, mfn_maddr(page) | LEAF_DATA);
    }
    batch_flush();
}

/* Maps the RAM in [va, va + 2 MiB) below ram_end. */
static void map_ram_chunk(uint64_t va, uint64_t ram_end)
{
    uint64_t l2e = ensure_entry(va, 2);
    pte_t l2 = read_entry(l2e);

    if (pte_present(l2)) {
        complete_l1(pte_addr(l2), va, ram_end);
    } else {
        uint64_t pa = alloc_table_frame();
        fill_l1((pte_t *)pa, va, ram_end);
        install_table(l2e, pa);
    }
    raise_mapped_end(va + LARGE_PAGE_SIZE, ram_end);
}

static bool in_region(uint64_t va, const char *start, const char *end)
{
    return va >= (uint64_t)start && va < (uint64_t)end;
}

/* The W^X entry for a page of the bootstrap region. Outside the image a
 * page keeps its writability: the read-only ones are page tables. */
static pte_t wx_entry(uint64_t va, pte_t old)
{
    uint64_t frame = pte_addr(old);

    if (va == 0 || is_guard_page(va))
        return 0;
    if (in_region(va, __kernel_start, __rodata_start))
        return frame | LEAF_TEXT;
    if (in_region(va, __rodata_start, __data_start))
        return frame | LEAF_RODATA;
    if (in_region(va, __data_start, __kernel_end))
        return frame | LEAF_DATA;
    return frame | (pte_writable(old) ? LEAF_DATA : LEAF_TABLE);
}

/* Xen maps its bootstrap region, page 0 and the image included, writable
 * and executable. Returns where that mapping ends. */
static uint64_t protect_bootstrap_region(void)
{
    uint64_t va;

    for (va = 0;; va += PAGE_SIZE) {
        uint64_t e = entry_maddr(va, 1);
        pte_t old = e ? read_entry(e) : 0;
        if (!pte_present(old) && va >= (uint64_t)__kernel_end)
            break;
        if (pte_present(old))
            batch_set(e, wx_entry(va, old));
    }
    batch_flush();
    return va;
}

static void flush_tlb(void)
{
    struct mmuext_op op = {.cmd = MMUEXT_TLB_FLUSH_LOCAL};

    xen_must(HYPERVISOR_mmuext_op(&op, 1, 0, DOMID_SELF), "mmuext_op tlb_flush_local");
}

static uint64_t ram_end_of(const struct boot_info *bi)
{
    uint64_t end = 0;

    for (size_t i = 0; i < bi->nr_ram; i++) {
        if (bi->ram[i].base + bi->ram[i].len > end)
            end = bi->ram[i].base + bi->ram[i].len;
    }
    return end;
}

/* xen.refused_update: a test of the error path. Asks, through the mmu
 * ops, for the top page table to be mapped writable at the boot stack's
 * guard page, which Xen must refuse (a page table is never writable); the
 * refusal must end the run with a one-line report naming the pte. */
static bool refused_update_test;
OPTION_BOOL(refused_update_test, "xen.refused_update",
            "test: request a pte update Xen must refuse, which must end the run");

static void request_refused_update(void)
{
    pte_t *ptep = platform_ops->maddr_to_virt(entry_maddr((uint64_t)boot_stack_guard, 1));

    kprintf("xen: asking Xen to map the top page table writable at %p\n", boot_stack_guard);
    set_pte(ptep, pml4_maddr | PTE_P | PTE_W | PTE_NX);
    panic("xen: Xen accepted a writable mapping of a page table");
}

void xen_kernel_map_init(const struct boot_info *bi)
{
    uint64_t ram_end = ram_end_of(bi);

    pml4_maddr = read_cr3() & PTE_ADDR_MASK;
    mapped_end = protect_bootstrap_region();
    for (uint64_t va = 0; va < ram_end; va += LARGE_PAGE_SIZE)
        map_ram_chunk(va, ram_end);
    flush_tlb();
    xen_mmu_mode_init(); /* the map is final and xen.mmu= is read: set up pte updates */
    if (refused_update_test)
        request_refused_update();
}
