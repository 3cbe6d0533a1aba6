/* Memory areas: ranges of 4 KiB pages in a window of the kernel's own
 * address space, each page a fresh frame, whose protection can change.
 * Every page-table write goes through the pv mmu ops (pv/mmu.h), so the
 * same code runs natively and as a Xen PV guest. */
#ifndef MM_VM_H
#define MM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm/pgtable.h"
#include "mm/pte_prot.h"
#include "mm/vma.h"

/* The window: PML4 slot 0, above any RAM this kernel maps at VA == PA
 * (the frame allocator stops at 8 GiB), and below Xen's upper half. Xen
 * PV's text-poke aliases sit just above it (xen/pv/text_poke.c). */
#define VM_WINDOW_START (UINT64_C(64) << 30)
#define VM_WINDOW_END (UINT64_C(128) << 30)

/* Sends page faults to the areas' handlers. Call once, after the kernel
 * map is final. */
void vm_init(void);

/* A new area of len bytes (rounded up to pages) mapped with prot, a guard
 * page clear of its neighbours. on_fault (may be NULL) gets each write to
 * a read-only page of it. NULL when prot is invalid (pte_prot.h) or
 * memory or window space runs out. */
void *vm_map(size_t len, unsigned prot, vma_fault_fn on_fault, void *ctx);

/* Unmaps the area that starts at addr and frees its frames; its page
 * tables stay for the next area. False if no area starts there. */
bool vm_unmap(void *addr);

/* Gives the pages of [addr, addr + len) the rights prot. The range must
 * be page-aligned and lie inside one area. 0, or -1 changing nothing. */
int mprotect(void *addr, size_t len, unsigned prot);

/* mprotect() without the checks, for callers that measure the pte loop
 * itself: every page of [start, end) must be mapped (else a panic). */
void mprotect_range(uint64_t start, uint64_t end, unsigned prot);

/* The live leaf entry for addr, 0 when there is none. */
pte_t vm_pte(const void *addr);

/* Waits for the mprotect or fault under way and holds off the next, this
 * thread unpreempted, until vm_unhold: meanwhile no CPU is inside a lazy
 * MMU section, so none has page-table updates queued (kernel/lifecycle.c). */
void vm_hold(void);
void vm_unhold(void);

#endif
