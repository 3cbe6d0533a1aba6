/* Writing read-only kernel text under Xen: a PV guest cannot clear CR0.WP,
 * so the page's own mapping is made writable for the copy, then restored
 * (update_va_mapping validates and flushes each change). */
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/hypercall.h"

void xen_text_poke(void *addr, const void *bytes, size_t len)
{
    uint64_t page = (uint64_t)addr & ~(PAGE_SIZE - 1);
    uint64_t pte = kernel_map_leaf(page);
    unsigned long flags;

    if (!pte_present(pte) || (pte & PTE_PS) || (uint64_t)addr + len > page + PAGE_SIZE)
        panic("text_poke: %p+%zu is not inside one mapped 4 KiB page", addr, len);
    flags = irq_save();
    xen_must(HYPERVISOR_update_va_mapping(page, pte | PTE_W, UVMF_INVLPG),
             "update_va_mapping text writable");
    memcpy(addr, bytes, len);
    xen_must(HYPERVISOR_update_va_mapping(page, pte, UVMF_INVLPG),
             "update_va_mapping text read-only");
    irq_restore(flags);
}
