/* Whole-table mprotect (mm/table_swap.h): the copy, the link and the
 * merge of A/D bits afterwards. */
#include "mm/table_swap.h"

#include "mm/frame_alloc.h"
#include "mm/pt_walk.h"
#include "mm/pte_prot.h"
#include "pv/mmu.h"

/* Tour 132: mprotect, a table at a time.
 * Under Xen each updated entry costs a validation in `mmu_update`; a new
 * table linked by one update of its L2 entry is validated in one pass, so
 * xen.mmu=swap replaces every L1 an mprotect covers whole. Three steps,
 * split so the caller can flush all TLBs between the last two: copy the
 * entries with their new rights, link the copy, and after the shootdown
 * merge the A/D bits CPUs set in the old table meanwhile (the race
 * start/commit closes for one entry) and free the old table. docs/mm.md
 * measures when this wins and when it loses. */
bool table_swap_copy(struct table_swap *s, uint64_t va, unsigned prot)
{
    struct pt_walk w;
    pte_t *l2e = pt_walk(read_cr3(), va, 2, PT_NO_ALLOC, &w), *old, *new;

    if (!l2e || w.level != 2 || !pte_present(*l2e) || pte_is_leaf(*l2e, 2))
        return false;
    *s = (struct table_swap){.l2e = l2e, .old_pa = maddr_to_phys(pte_addr(*l2e))};
    old = phys_to_virt(s->old_pa);
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        if (!pte_present(old[i]))
            return false; /* the per-entry path says which page */
    }
    s->new_pa = frame_alloc();
    if (!s->new_pa)
        return false;
    new = phys_to_virt(s->new_pa);
    for (unsigned i = 0; i < PT_ENTRIES; i++)
        new[i] = pte_modify_prot(__atomic_load_n(&old[i], __ATOMIC_RELAXED), prot);
    return true;
}

/* The L2 entry keeps its own flags; only the table it points at changes. */
void table_swap_link(const struct table_swap *s)
{
    make_page_table(s->new_pa, 1);
    set_table_entry(s->l2e, phys_to_maddr(s->new_pa) | (*s->l2e & ~PTE_ADDR_MASK));
}

/* A bit the old entry has and the new one lacks was set after the copy:
 * the copy carried every bit set before it. The new entry is live, so
 * the merge is a start/commit pair, which keeps bits set meanwhile. */
void table_swap_finish(const struct table_swap *s)
{
    const pte_t *old = phys_to_virt(s->old_pa);
    pte_t *new = phys_to_virt(s->new_pa);

    enter_lazy_mmu();
    for (unsigned i = 0; i < PT_ENTRIES; i++) {
        pte_t gained = old[i] & ~new[i] & (PTE_A | PTE_D);
        if (gained)
            ptep_modify_prot_commit(&new[i], ptep_modify_prot_start(&new[i]) | gained);
    }
    leave_lazy_mmu();
    release_page_table(s->old_pa, 1);
    frame_free(s->old_pa);
}
