/* Memory areas: map, unmap and mprotect over the window's page tables.
 *
 * Each pte loop runs in a lazy MMU section, so a hypervisor backend may
 * queue the updates and apply them at leave_lazy_mmu(), and changes a pte
 * with the start/commit pair, so Accessed and Dirty bits the CPU sets
 * while the entry changes are never lost. The TLB flush is queued in the
 * same section: under Xen it travels in the same batch as the updates. */
#include "mm/vm.h"

#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "mm/mm_stats.h"
#include "mm/vm_internal.h"
#include "mm/pt_walk.h"
#include "mm/table_swap.h"
#include "mm/tlb.h"
#include "pv/mmu.h"

#define VM_MAX_AREAS 64
#define UNMAP_BATCH 64 /* pages cleared before their frames are freed */
#define SWAPS_MAX 8    /* whole tables one mprotect swaps; the rest go by entry */

struct spinlock vm_lock;
static struct thread *vm_lock_holder;
static struct vma_list areas;
static struct vma area_pool[VM_MAX_AREAS]; /* a slot is free while its end is 0 */

/* vm_lock is taken with interrupts as the caller has them, never turned
 * off for it: the holder may have to wait for every other CPU to flush
 * its TLB, which a CPU spinning here with interrupts off could never do.
 * Its holder is not preempted, as no spin_lock() holder is: mutators
 * fault in a stream, and on one CPU a preempted holder once left a queue
 * of waiters that each spun a whole slice per hand-over (wl_cycle under
 * icount never ended). */
void vm_lock_take(void)
{
    spin_lock(&vm_lock);
    vm_lock_holder = thread_current();
}

void vm_lock_release(void)
{
    vm_lock_holder = NULL;
    spin_unlock(&vm_lock);
}

void vm_hold(void)
{
    vm_lock_take();
}

void vm_unhold(void)
{
    vm_lock_release();
}

bool vm_lock_held_by_me(void)
{
    return __atomic_load_n(&vm_lock_holder, __ATOMIC_RELAXED) == thread_current();
}

static struct vma *area_alloc(void)
{
    for (int i = 0; i < VM_MAX_AREAS; i++) {
        if (area_pool[i].end == 0)
            return &area_pool[i];
    }
    return NULL;
}

pte_t *vm_pt_entry(uint64_t va, bool create)
{
    return pt_l1_entry(read_cr3(), va, create ? PT_ALLOC_ANY : PT_NO_ALLOC);
}

/* The pseudo-physical address of the frame an entry maps. */
static uint64_t entry_frame(pte_t e)
{
    return maddr_to_phys(pte_addr(e));
}

/* Clears the entries of [start, end) and frees their frames, a batch at
 * a time: a frame is freed only once no TLB can still reach it. */
static void unmap_pages(uint64_t start, uint64_t end)
{
    while (start < end) {
        uint64_t frames[UNMAP_BATCH], stop = start + UNMAP_BATCH * PAGE_SIZE;
        unsigned n = 0;

        stop = stop < end ? stop : end;
        enter_lazy_mmu();
        for (uint64_t va = start; va < stop; va += PAGE_SIZE) {
            pte_t *ptep = vm_pt_entry(va, false);
            if (ptep && pte_present(*ptep)) {
                frames[n++] = entry_frame(*ptep);
                set_pte(ptep, 0);
            }
        }
        tlb_flush_range(start, stop);
        leave_lazy_mmu();
        mm_stats_add(MM_PTES, n);
        for (unsigned i = 0; i < n; i++)
            frame_free(frames[i]);
        start = stop;
    }
}

/* Maps fresh, zeroed frames at [start, end). No TLB flush: the CPU
 * caches no entry that is not present (SDM 4.10.2.3). */
static bool map_pages(uint64_t start, uint64_t end, unsigned prot)
{
    uint64_t va;
    bool ok = true;

    enter_lazy_mmu();
    for (va = start; va < end; va += PAGE_SIZE) {
        uint64_t pa = frame_alloc();
        pte_t *ptep = pa ? vm_pt_entry(va, true) : NULL;
        if (!ptep) {
            if (pa)
                frame_free(pa);
            ok = false;
            break;
        }
        memset(phys_to_virt(pa), 0, PAGE_SIZE);
        set_pte(ptep, pte_make(phys_to_maddr(pa), prot));
    }
    leave_lazy_mmu();
    mm_stats_add(MM_PTES, (va - start) / PAGE_SIZE);
    if (!ok)
        unmap_pages(start, va);
    return ok;
}

void *vm_map(size_t len, unsigned prot, vma_fault_fn on_fault, void *ctx)
{
    uint64_t size = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
    struct vma *a = NULL;
    uint64_t start;

    if (!vm_prot_valid(prot) || size == 0 || size < len)
        return NULL;
    vm_lock_take();
    /* From 2 MiB up an area starts on a table boundary, so protecting all
     * of it covers whole L1 tables (mm/table_swap.h). */
    start = vma_find_free(&areas, VM_WINDOW_START, VM_WINDOW_END, size,
                          size >= LARGE_PAGE_SIZE ? LARGE_PAGE_SIZE : PAGE_SIZE);
    if (start && (a = area_alloc()) && map_pages(start, start + size, prot)) {
        *a = (struct vma){
            .start = start, .end = start + size, .prot = prot, .on_fault = on_fault, .ctx = ctx};
        if (!vma_insert(&areas, a))
            panic("mm: a free range [0x%lx, 0x%lx) overlaps an area", start, start + size);
    } else {
        a = NULL;
    }
    vm_lock_release();
    return a ? (void *)start : NULL;
}

bool vm_unmap(void *addr)
{
    vm_lock_take();
    struct vma *a = vma_find(&areas, (uint64_t)addr);
    bool found = a && a->start == (uint64_t)addr;

    if (found) {
        unmap_pages(a->start, a->end);
        vma_remove(&areas, a);
        a->end = 0;
    }
    vm_lock_release();
    return found;
}

/* The entries of [start, end) one at a time, a walk per table: the loop
 * of Linux's change_pte_range(). Inline, to cost a native mprotect of a
 * few pages no call. */
static inline __attribute__((always_inline)) void protect_ptes(uint64_t start, uint64_t end,
                                                               unsigned prot)
{
    for (uint64_t va = start; va < end;) {
        pte_t *ptep = vm_pt_entry(va, false);
        uint64_t table_end = (va | (LARGE_PAGE_SIZE - 1)) + 1; /* one L1 table maps 2 MiB */

        if (!ptep)
            panic("mm: mprotect of 0x%lx, which has no page table", va);
        for (; va < end && va < table_end; va += PAGE_SIZE, ptep++) {
            pte_t old = ptep_modify_prot_start(ptep);
            if (!pte_present(old))
                panic("mm: mprotect of 0x%lx, which is not mapped", va);
            ptep_modify_prot_commit(ptep, pte_modify_prot(old, prot));
        }
    }
}

/* mprotect where the backend swaps whole tables: each table [start, end)
 * covers whole is copied and swapped, the rest goes entry by entry; the
 * swaps are finished once every CPU has flushed. Not inlined: its frame
 * would cost the per-entry path of every mprotect spills. */
static __attribute__((noinline)) void change_protection_by_table(uint64_t start, uint64_t end,
                                                                 unsigned prot)
{
    struct table_swap swaps[SWAPS_MAX];
    unsigned swapped = 0;

    enter_lazy_mmu();
    for (uint64_t va = start, next; va < end; va = next) {
        next = (va | (LARGE_PAGE_SIZE - 1)) + 1;
        next = next < end ? next : end;
        if (next - va == LARGE_PAGE_SIZE && swapped < SWAPS_MAX &&
            table_swap_copy(&swaps[swapped], va, prot))
            table_swap_link(&swaps[swapped++]);
        else
            protect_ptes(va, next, prot);
    }
    tlb_flush_range(start, end);
    leave_lazy_mmu();
    for (unsigned i = 0; i < swapped; i++)
        table_swap_finish(&swaps[i]);
}

/* Tour 130: mprotect, one pte at a time.
 * `change_protection` is the loop the 2008 series was about, as in Linux's
 * change_pte_range(): one lazy-MMU section around a start/commit pair per
 * page (start hands back the entry, natively clearing it; commit writes
 * the new one), then the TLB flush. Natively every op here is the inline
 * instruction; under Xen each is a direct call whose cost depends on
 * `xen.mmu`, and batch mode queues the commits and the flush until
 * `leave_lazy_mmu`. Where the backend `swaps_whole_tables` and the range
 * holds a whole table, `change_protection_by_table` swaps tables instead
 * (mm/table_swap.c). The write-barrier workload (kernel/write_barrier.c)
 * re-protects its whole heap this way every cycle. */
static void change_protection(uint64_t start, uint64_t end, unsigned prot)
{
    if (end - start >= LARGE_PAGE_SIZE && swaps_whole_tables()) {
        change_protection_by_table(start, end, prot);
    } else {
        enter_lazy_mmu();
        protect_ptes(start, end, prot);
        tlb_flush_range(start, end);
        leave_lazy_mmu();
    }
    mm_stats_add(MM_PTES, (end - start) / PAGE_SIZE);
}

int mprotect(void *addr, size_t len, unsigned prot)
{
    uint64_t start = (uint64_t)addr, end = start + len;
    int rc = -1;

    if ((start | len) & (PAGE_SIZE - 1) || end < start || !vm_prot_valid(prot))
        return -1;
    vm_lock_take();
    if (vma_find_range(&areas, start, end)) {
        change_protection(start, end, prot);
        rc = 0;
    }
    vm_lock_release();
    return rc;
}

void mprotect_range(uint64_t start, uint64_t end, unsigned prot)
{
    vm_lock_take();

    change_protection(start & ~(PAGE_SIZE - 1), (end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1), prot);
    vm_lock_release();
}

pte_t vm_pte(const void *addr)
{
    vm_lock_take();
    pte_t *ptep = vm_pt_entry((uint64_t)addr, false);
    pte_t e = ptep ? *ptep : 0;

    vm_lock_release();
    return e;
}

/* The handler of the area holding addr, run without the lock: it may call
 * mprotect. False when there is no area or it has no handler. */
bool vm_write_fault(uint64_t addr)
{
    vm_lock_take();
    struct vma *a = vma_find(&areas, addr);
    vma_fault_fn fn = a ? a->on_fault : NULL;
    void *ctx = a ? a->ctx : NULL;

    vm_lock_release();
    if (!fn)
        return false;
    mm_stats_add(MM_FAULTS, 1);
    return fn(addr, ctx);
}
