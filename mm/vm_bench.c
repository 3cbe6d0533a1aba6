/* The page-table benchmarks, beside the code they measure (registered
 * with bench/ like any other): one set_pte, one start/commit pair,
 * mprotect of 1, 16 and 512 pages and a whole-table swap, on pages of a
 * memory area of their own.
 * Natively these are plain stores; under Xen each pte write is trapped
 * and emulated, a hypercall, or queued into a multicall (xen.mmu=), the
 * three costs behind the 2008 mprotect numbers.
 *
 * Every op flips the writable bit, so the check can tell an op that did
 * not happen: the entries must end with the bit the op count says. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/console.h"
#include "kernel/smp.h"
#include "mm/vm.h"
#include "mm/mm_stats.h"
#include "mm/table_swap.h"
#include "mm/tlb.h"
#include "mm/vm_internal.h"
#include "pv/irq.h"
#include "pv/mmu.h"

#define PTE_ITERS 5000
#define MPROTECT_1_ITERS 2000
#define MPROTECT_16_ITERS 500
#define MPROTECT_512_ITERS 20
#define AREA_PAGES 512

static uint8_t *area; /* mapped once, kept for every run */
static const char *problem;
static bool writable; /* what the entries should say once the ops are done */

static void expect(bool ok, const char *what)
{
    if (!ok && !problem)
        problem = what;
}

static const char *prepare_pte(void)
{
    problem = 0;
    if (!area)
        area = vm_map(AREA_PAGES * PAGE_SIZE, VM_READ | VM_WRITE, 0, 0);
    if (!area)
        return "no memory for the benchmark's area";
    if (mprotect(area, AREA_PAGES * PAGE_SIZE, VM_READ | VM_WRITE) != 0)
        return "mprotect of the benchmark's area failed";
    writable = true;
    return 0;
}

/* The first pages entries say what the ops left. */
static void expect_pages(unsigned pages)
{
    for (unsigned i = 0; i < pages; i++) {
        pte_t e = vm_pte(area + i * PAGE_SIZE);
        expect(pte_present(e), "a page of the area is no longer mapped");
        expect(pte_writable(e) == writable, "a pte does not have the bit the last op gave it");
    }
}

static const char *check_one_page(void)
{
    expect_pages(1);
    return problem;
}

/* ---- pte_set and pte_modify_prot: one entry written through the mmu ops
 * directly, outside any lazy section, so each op reaches Xen on its own.
 * vm_lock is held, and interrupts are off so no tick lands in the loop. */

static uint64_t measure_set_pte(uint64_t n)
{
    vm_lock_take();
    unsigned long flags = irq_save();
    pte_t *ptep = vm_pt_entry((uint64_t)area, false);
    pte_t e = *ptep;
    uint64_t t = BENCH_TIME_LOOP(n, {
        e ^= PTE_W;
        set_pte(ptep, e);
    });

    flush_tlb_one((uint64_t)area);
    irq_restore(flags);
    vm_lock_release();
    writable ^= n & 1;
    return t;
}

BENCH_DEFINE(pte_set, pte, "one `set_pte` of a live entry, outside a lazy section",
             .iters = PTE_ITERS, .subtract_loop = true, .prepare = prepare_pte,
             .measure = measure_set_pte, .check = check_one_page);

static uint64_t measure_modify_prot(uint64_t n)
{
    vm_lock_take();
    unsigned long flags = irq_save();
    pte_t *ptep = vm_pt_entry((uint64_t)area, false);
    uint64_t t = BENCH_TIME_LOOP(n, {
        pte_t old = ptep_modify_prot_start(ptep);
        ptep_modify_prot_commit(ptep, old ^ PTE_W);
    });

    flush_tlb_one((uint64_t)area);
    irq_restore(flags);
    vm_lock_release();
    writable ^= n & 1;
    return t;
}

BENCH_DEFINE(pte_modify_prot, pte, "`ptep_modify_prot_start` + `commit` of one entry",
             .iters = PTE_ITERS, .subtract_loop = true, .prepare = prepare_pte,
             .measure = measure_modify_prot, .check = check_one_page);

/* ---- mprotect_N: the whole call, lock, lookup, lazy section, pte loop
 * and TLB flush included, alternating read-only and read-write. */

static uint64_t mprotect_pages(unsigned pages, uint64_t n)
{
    uint64_t failed = 0;
    uint64_t t = BENCH_TIME_LOOP(n, {
        writable = !writable;
        failed += mprotect(area, pages * PAGE_SIZE, writable ? VM_READ | VM_WRITE : VM_READ) != 0;
    });

    expect(failed == 0, "mprotect failed");
    return t;
}

/* One more op of the benchmark's own loop, with what it cost in the
 * backend's counters, printed in the form linux-user/bench/xen_trace.c prints
 * Linux's so the report can set the two kernels' hypercalls side by side.
 * It also makes the count of ops odd: after the timed loops it is even,
 * and a loop that changed nothing would leave the rights the check wants. */
static void count_one_mprotect(const char *name, unsigned pages)
{
    struct mm_stats before, after;

    mm_stats_read(&before);
    mprotect_pages(pages, 1);
    mm_stats_read(&after);
    kprintf("mmcounts: name=%s hypercalls=%lu mc_entries=%lu\n", name,
            after.hypercalls - before.hypercalls, after.mc_entries - before.mc_entries);
}

#define MPROTECT_BENCH(pages_, iters_)                                                             \
    static uint64_t measure_mprotect_##pages_(uint64_t n)                                          \
    {                                                                                              \
        return mprotect_pages(pages_, n);                                                          \
    }                                                                                              \
    static const char *check_mprotect_##pages_(void)                                               \
    {                                                                                              \
        count_one_mprotect("mprotect_" #pages_, pages_);                                           \
        expect_pages(pages_);                                                                      \
        return problem;                                                                            \
    }                                                                                              \
    BENCH_DEFINE(mprotect_##pages_, pte,                                                           \
                 "one `mprotect()` of a " #pages_ "-page range, lock and TLB flush included",      \
                 .iters = iters_, .subtract_loop = true, .prepare = prepare_pte,                   \
                 .measure = measure_mprotect_##pages_, .check = check_mprotect_##pages_)

MPROTECT_BENCH(1, MPROTECT_1_ITERS);
MPROTECT_BENCH(16, MPROTECT_16_ITERS);
MPROTECT_BENCH(512, MPROTECT_512_ITERS);

/* ---- table_swap_512: mprotect_512's whole-table path (xen.mmu=swap)
 * called directly, on every platform: copy the area's L1 with the other
 * rights, link the copy, flush, merge A/D bits and free the old table.
 * Natively this is the guest's own share of a swap, and what swapping
 * would cost a native kernel against mprotect_512's per-entry loop; under
 * Xen the difference is Xen's: validating the new table and unvalidating
 * the old, a reference taken and one dropped per entry. The area is one
 * whole table: vm_map aligns 2 MiB areas. */

static uint64_t measure_table_swap(uint64_t n)
{
    uint64_t start = (uint64_t)area, failed = 0;
    struct table_swap s;

    vm_lock_take();
    uint64_t t = BENCH_TIME_LOOP(n, {
        writable = !writable;
        if (table_swap_copy(&s, start, writable ? VM_READ | VM_WRITE : VM_READ)) {
            enter_lazy_mmu();
            table_swap_link(&s);
            tlb_flush_range(start, start + LARGE_PAGE_SIZE);
            leave_lazy_mmu();
            table_swap_finish(&s);
        } else {
            failed++;
        }
    });
    vm_lock_release();
    expect(failed == 0, "the area's page table could not be copied");
    return t;
}

BENCH_DEFINE(table_swap_512, pte,
             "the area's L1 replaced by a copy with the other rights, as `xen.mmu=swap` does",
             .iters = MPROTECT_512_ITERS, .subtract_loop = true, .prepare = prepare_pte,
             .measure = measure_table_swap, .check = check_mprotect_512);

/* ---- tlb_shootdown_N: the flush that ends an mprotect of N pages, alone,
 * in a lazy-MMU section as mprotect runs it: this CPU's TLB and, with
 * several CPUs, a shootdown of every other one (natively an IPI each,
 * under Xen one mmuext_op). With one CPU it is the local flush only, so
 * an SMP configuration's figure less the one-CPU figure is what the
 * shootdown costs. The check counts the shootdowns. */

static uint64_t tlb_flush_pages(unsigned pages, uint64_t n)
{
    struct mm_stats before, after;
    uint64_t start = (uint64_t)area, end = start + pages * PAGE_SIZE;

    mm_stats_read(&before);
    uint64_t t = BENCH_TIME_LOOP(n, {
        enter_lazy_mmu();
        tlb_flush_range(start, end);
        leave_lazy_mmu();
    });
    mm_stats_read(&after);
    expect(after.shootdowns - before.shootdowns >= (smp_cpus_online() > 1 ? n : 0),
           "a flush on SMP skipped its shootdown");
    return t;
}

#define TLB_SHOOTDOWN_BENCH(pages_, iters_)                                                        \
    static uint64_t measure_tlb_shootdown_##pages_(uint64_t n)                                     \
    {                                                                                              \
        return tlb_flush_pages(pages_, n);                                                         \
    }                                                                                              \
    BENCH_DEFINE(tlb_shootdown_##pages_, pte,                                                      \
                 "the TLB flush of a " #pages_ "-page mprotect: every CPU's (a shootdown on SMP)", \
                 .iters = iters_, .subtract_loop = true, .prepare = prepare_pte,                   \
                 .measure = measure_tlb_shootdown_##pages_, .check = check_one_page)

TLB_SHOOTDOWN_BENCH(1, MPROTECT_1_ITERS);
TLB_SHOOTDOWN_BENCH(16, MPROTECT_16_ITERS);
TLB_SHOOTDOWN_BENCH(512, MPROTECT_16_ITERS);
