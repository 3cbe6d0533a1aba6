/* Writing read-only kernel text under Xen. A PV guest cannot clear CR0.WP,
 * and making the text's own mapping writable would leave a page writable
 * and executable, in page tables every vCPU shares, for the length of the
 * copy. So the copy goes through an alias: a second mapping of the same
 * frame, writable and not executable, at a page of the poke area that
 * belongs to this vCPU alone. The text's own mapping never changes. */
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"
#include "mm/pt_walk.h"
#include "mm/vm.h"
#include "pv/irq.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"

/* One page per vCPU, just above the memory-area window, in one L1 table. */
#define POKE_AREA VM_WINDOW_END
#define ALIAS_FLAGS (PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX)

_Static_assert(LARGE_PAGE_SIZE >= MAX_CPUS * PAGE_SIZE, "the poke area fits one L1 table");

/* update_va_mapping needs the L1 table that holds the alias's entry
 * (Xen ABI: it changes an existing L1 entry); made once, with the map. */
void xen_text_poke_init(uint64_t root)
{
    if (!pt_l1_entry(root, POKE_AREA, PT_ALLOC_ANY))
        panic("text_poke: no frame left for the poke area's page table");
}

/* Only this vCPU ever touches its alias, and it holds interrupts off
 * throughout, so a local flush of that one entry is all each change needs. */
static void poke_in_page(uint8_t *addr, const uint8_t *bytes, size_t len)
{
    uint64_t page = (uint64_t)addr & ~(PAGE_SIZE - 1);
    uint64_t pte = kernel_map_leaf(page);
    uint64_t alias = POKE_AREA + (uint64_t)cpu_index() * PAGE_SIZE;

    if (!pte_present(pte) || (pte & PTE_PS))
        panic("text_poke: %p is not in a mapped 4 KiB page", (void *)addr);
    xen_must(HYPERVISOR_update_va_mapping(alias, pte_addr(pte) | ALIAS_FLAGS, UVMF_INVLPG),
             "update_va_mapping text alias");
    memcpy((uint8_t *)alias + ((uint64_t)addr - page), bytes, len);
    xen_must(HYPERVISOR_update_va_mapping(alias, 0, UVMF_INVLPG), "update_va_mapping unalias");
}

/* A site may straddle two pages: one alias per page, and interrupts off
 * throughout, so no handler here runs half the bytes and the thread keeps
 * its vCPU, and with it the alias. */
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
