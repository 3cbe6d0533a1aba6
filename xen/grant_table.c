/* Grant table v1 entries and their references, for both Xen backends. The
 * table is mapped at a fixed kernel address, writable and never
 * executable, through the pv mmu ops; the frames come from the backend. */
#include "xen/grant_table.h"

#include "kernel/exit.h"
#include "kernel/lifecycle.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "mm/pgtable.h"
#include "mm/pt_walk.h"
#include "mm/vm.h"
#include "pv/irq.h"
#include "pv/mmu.h"
#include "xen/grant_refs.h"

/* The 2 MiB after Xen PV's text-poke aliases (xen/pv/text_poke.c). */
#define GNTTAB_AREA (VM_WINDOW_END + LARGE_PAGE_SIZE)
#define ENTRIES_PER_FRAME (PAGE_SIZE / sizeof(grant_entry_v1_t))
#define GNTTAB_ENTRIES (GNTTAB_FRAMES * ENTRIES_PER_FRAME)
#define MAP_FLAGS (PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX)

static gnttab_frames_fn frames_fn;
static grant_entry_v1_t *table;
static struct grant_refs refs;
static uint32_t next_free[GNTTAB_ENTRIES];
static struct spinlock lock;

void gnttab_use(gnttab_frames_fn fn)
{
    frames_fn = fn;
}

static const char *map_frames(const uint64_t *frames)
{
    for (unsigned i = 0; i < GNTTAB_FRAMES; i++) {
        uint64_t va = GNTTAB_AREA + i * PAGE_SIZE;
        pte_t *ptep = pt_l1_entry(read_cr3(), va, PT_ALLOC_ANY);

        if (!ptep)
            return "no frame left for the grant table's page table";
        set_pte(ptep, (frames[i] & PTE_ADDR_MASK) | MAP_FLAGS);
        flush_tlb_one(va);
    }
    return NULL;
}

static const char *set_up(void)
{
    uint64_t frames[GNTTAB_FRAMES];
    const char *err = frames_fn(GNTTAB_FRAMES, frames);

    return err ? err : map_frames(frames);
}

/* The toolstack saves no page table entry naming a frame outside our p2m
 * (a PV rule), and Xen's grant frames are outside it: unmapped for the
 * suspend, under either backend alike. */
static void gnttab_suspend(void)
{
    for (unsigned i = 0; i < GNTTAB_FRAMES; i++) {
        uint64_t va = GNTTAB_AREA + i * PAGE_SIZE;
        set_pte(pt_l1_entry(read_cr3(), va, PT_ALLOC_ANY), 0);
        flush_tlb_one(va);
    }
}

/* A new domain's table is empty: every reference is free again, and the
 * frontends grant afresh. A cancelled suspend keeps the same table. */
static void gnttab_resume(bool new_domain)
{
    const char *err = set_up();

    if (err)
        panic("xen: the grant table after a resume: %s", err);
    if (new_domain)
        grant_refs_init(&refs, next_free, GNTTAB_ENTRIES, GNTTAB_NR_RESERVED_ENTRIES);
}

static struct lifecycle_hook hook = {
    .name = "grant table", .suspend = gnttab_suspend, .resume = gnttab_resume};

const char *gnttab_init(void)
{
    const char *err;

    if (table)
        return NULL;
    if (!frames_fn)
        return "this platform has no grant table";
    err = set_up();
    if (err)
        return err;
    table = (grant_entry_v1_t *)GNTTAB_AREA;
    grant_refs_init(&refs, next_free, GNTTAB_ENTRIES, GNTTAB_NR_RESERVED_ENTRIES);
    lifecycle_register(&hook);
    return NULL;
}

/* Xen ABI (grant_table.h): frame and domid must be visible before the
 * flags that make the entry valid, which Xen may read at any time. */
grant_ref_t gnttab_grant(domid_t domid, uint64_t frame, bool readonly)
{
    unsigned long flags = spin_lock_irqsave(&lock);
    uint32_t ref = table ? grant_ref_alloc(&refs) : GRANT_REF_NONE;

    spin_unlock_irqrestore(&lock, flags);
    if (ref == GRANT_REF_NONE)
        return GRANT_REF_NONE;
    table[ref].frame = (uint32_t)frame;
    table[ref].domid = domid;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&table[ref].flags, GTF_permit_access | (readonly ? GTF_readonly : 0),
                     __ATOMIC_RELAXED);
    return ref;
}

/* Xen ABI: an entry is invalidated by clearing its flags only while Xen
 * shows it neither GTF_reading nor GTF_writing; the cmpxchg fails if the
 * other domain maps it between our look and our write. */
bool gnttab_end(grant_ref_t ref)
{
    uint16_t old = __atomic_load_n(&table[ref].flags, __ATOMIC_ACQUIRE);
    unsigned long flags;
    bool freed;

    do {
        if (old & (GTF_reading | GTF_writing))
            return false;
    } while (!__atomic_compare_exchange_n(&table[ref].flags, &old, 0, false, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    flags = spin_lock_irqsave(&lock);
    freed = grant_ref_free(&refs, ref);
    spin_unlock_irqrestore(&lock, flags);
    return freed;
}

grant_entry_v1_t gnttab_peek(grant_ref_t ref)
{
    grant_entry_v1_t e = {0};

    if (table && ref < GNTTAB_ENTRIES)
        e = *(volatile grant_entry_v1_t *)&table[ref];
    return e;
}

uint32_t gnttab_free_count(void)
{
    return refs.nfree;
}
