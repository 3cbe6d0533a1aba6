/* Writing read-only kernel text under Xen: a PV guest cannot clear CR0.WP,
 * so the page's own mapping is made writable for the copy, then restored
 * (update_va_mapping validates and flushes each change). The restore
 * flushes every vCPU's TLB: another vCPU running code on the page may
 * have cached the writable entry meanwhile. */
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"
#include "pv/irq.h"
#include "xen/pv/backend.h"
#include "xen/hypercall.h"

static void poke_in_page(uint8_t *addr, const uint8_t *bytes, size_t len)
{
    uint64_t page = (uint64_t)addr & ~(PAGE_SIZE - 1);
    uint64_t pte = kernel_map_leaf(page);

    if (!pte_present(pte) || (pte & PTE_PS))
        panic("text_poke: %p is not in a mapped 4 KiB page", (void *)addr);
    xen_must(HYPERVISOR_update_va_mapping(page, pte | PTE_W, UVMF_INVLPG),
             "update_va_mapping text writable");
    memcpy(addr, bytes, len);
    xen_must(HYPERVISOR_update_va_mapping(page, pte, UVMF_INVLPG | UVMF_ALL),
             "update_va_mapping text read-only");
}

/* A site may straddle two pages: one mapping change per page, and
 * interrupts off throughout, so no handler here runs half the bytes. */
void xen_text_poke(void *addr, const void *bytes, size_t len)
{
    uint8_t *to = addr;
    const uint8_t *from = bytes;
    unsigned long flags = irq_save();

    while (len > 0) {
        size_t room = PAGE_SIZE - ((uint64_t)to & (PAGE_SIZE - 1));
        size_t n = len < room ? len : room;

        poke_in_page(to, from, n);
        to += n;
        from += n;
        len -= n;
    }
    irq_restore(flags);
}
