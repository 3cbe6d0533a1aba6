/* The kernel map under Xen: Xen's bootstrap page tables, made W^X and
 * extended to map all of the domain's RAM at VA == pseudo-physical address.
 *
 * Xen ABI (PV memory management): page tables hold machine addresses; a
 * frame that is a page table must not be mapped writable anywhere, so the
 * guest writes table entries only through Xen, which validates each one.
 * Here every entry is found with the one walker (mm/pt_walk.c) and written
 * by this backend's own mmu ops, called directly (the backend needs no
 * call site to reach itself), inside lazy-MMU sections: in batch mode the
 * updates travel in multicalls, exactly as mprotect's do. */
#include <stdint.h>

#include "kernel/boot_info.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "mm/kernel_map.h"
#include "mm/pt_walk.h"
#include "pv/mmu.h"
#include "xen/pv/backend.h"

#define LEAF_TEXT (PTE_P | PTE_A)
#define LEAF_RODATA (PTE_P | PTE_A | PTE_NX)
#define LEAF_DATA (PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX)
#define LEAF_TABLE (PTE_P | PTE_A | PTE_NX) /* a page table's own mapping */

/* [0, mapped_end) is mapped: frames below it can be written before use,
 * so new tables come from there. */
static uint64_t mapped_end;

/* The top-level table's machine address. */
static uint64_t root;

/* Page 0 stays unmapped so a null pointer faults; guard pages likewise. */
static bool ram_page_mapped(uint64_t page, uint64_t ram_end)
{
    return page != 0 && page < ram_end && !is_guard_page(page);
}

/* Maps the RAM in [va, va + 2 MiB) below ram_end that is not mapped yet.
 * Only once Xen has applied the updates can those frames hold tables. */
static void map_ram_chunk(uint64_t va, uint64_t ram_end)
{
    xen_enter_lazy_mmu();
    for (uint64_t page = va; page < va + LARGE_PAGE_SIZE; page += PAGE_SIZE) {
        pte_t *e;
        if (!ram_page_mapped(page, ram_end))
            continue;
        e = pt_l1_entry(root, page, mapped_end);
        if (!e)
            panic("xen: out of mapped memory for page tables");
        if (!pte_present(*e))
            xen_set_pte(e, xen_phys_to_maddr(page) | LEAF_DATA);
    }
    xen_leave_lazy_mmu();
    if (va + LARGE_PAGE_SIZE > mapped_end)
        mapped_end = va + LARGE_PAGE_SIZE < ram_end ? va + LARGE_PAGE_SIZE : ram_end;
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

    xen_enter_lazy_mmu();
    for (va = 0;; va += PAGE_SIZE) {
        pte_t *e = pt_l1_entry(root, va, PT_NO_ALLOC);
        pte_t old = e ? *e : 0;
        if (!pte_present(old) && va >= (uint64_t)__kernel_end)
            break;
        if (pte_present(old))
            xen_set_pte(e, wx_entry(va, old));
    }
    xen_leave_lazy_mmu();
    return va;
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
OPTION_BOOL_WHERE(PV_CAP_XEN_PV, refused_update_test, "xen.refused_update",
                  "test: request a pte update Xen must refuse, which must end the run");

static void request_refused_update(void)
{
    pte_t *ptep = pt_l1_entry(root, (uint64_t)boot_stack_guard, PT_NO_ALLOC);

    kprintf("xen: asking Xen to map the top page table writable at %p\n", boot_stack_guard);
    set_pte(ptep, root | PTE_P | PTE_W | PTE_NX);
    panic("xen: Xen accepted a writable mapping of a page table");
}

void xen_kernel_map_init(const struct boot_info *bi)
{
    uint64_t ram_end = ram_end_of(bi);

    root = read_cr3() & PTE_ADDR_MASK;
    mapped_end = protect_bootstrap_region();
    for (uint64_t va = 0; va < ram_end; va += LARGE_PAGE_SIZE)
        map_ram_chunk(va, ram_end);
    xen_write_cr3(xen_read_cr3()); /* Xen ABI: a new base, even the same one, flushes the TLB */
    xen_text_poke_init(root);
    if (refused_update_test)
        request_refused_update();
}
