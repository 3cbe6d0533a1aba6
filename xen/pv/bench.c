/* Benchmarks only a Xen PV guest can run (each needs PV_CAP_XEN_PV), and
 * the PV backend's options that change what every page-table benchmark
 * measures. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "mm/pgtable.h"
#include "mm/vm.h"
#include "pv/irq.h"
#include "pv/mmu.h"
#include "xen/pv/backend.h"

/* How pte updates reach Xen changes every page-table benchmark: each
 * result under Xen PV names the mode it ran in. */
BENCH_CONFIG_OPTION(xen_mmu, PV_CAP_XEN_PV, "xen.mmu");
/* Hypercalls through the hypercall page are a variant; inline is usual. */
BENCH_CONFIG_OPTION_UNLESS(xen_hypercall, PV_CAP_XEN_PV, "xen.hypercall", "inline");

static const char *problem;

static void expect(bool ok, const char *what)
{
    if (!ok && !problem)
        problem = what;
}

static const char *check_withheld(void)
{
    return problem;
}

/* ---- xen_mprotect_512_withheld: mprotect_512's own work, the same
 * batches built and queued but never issued (xen_mmu_withhold), so
 * mprotect_512 less this is what the hypercalls cost: Xen's validation
 * of each entry and the transitions into Xen and back. Interrupts are off
 * so nothing else queues meanwhile. The page tables never change, so the
 * area's rights are put back by a real mprotect after the loop. */

#define WITHHELD_PAGES 512
#define WITHHELD_ITERS 20

static uint8_t *withheld_area;

/* Mapped once, kept for every run. */
static bool map_withheld_area(void)
{
    if (!withheld_area)
        withheld_area = vm_map(WITHHELD_PAGES * PAGE_SIZE, VM_READ | VM_WRITE, 0, 0);
    return withheld_area != 0;
}

static const char *prepare_withheld(void)
{
    if (!map_withheld_area())
        return "no memory for the benchmark's area";
    problem = 0;
    return 0;
}

static uint64_t measure_withheld(uint64_t n)
{
    const size_t len = WITHHELD_PAGES * PAGE_SIZE;
    uint64_t failed = 0;
    bool writable = true;
    unsigned long flags = irq_save();

    xen_mmu_withhold(true);
    uint64_t t = BENCH_TIME_LOOP(n, {
        writable = !writable;
        failed += mprotect(withheld_area, len, writable ? VM_READ | VM_WRITE : VM_READ) != 0;
    });
    xen_mmu_withhold(false);
    irq_restore(flags);
    failed += mprotect(withheld_area, len, VM_READ) != 0;
    failed += mprotect(withheld_area, len, VM_READ | VM_WRITE) != 0;
    expect(failed == 0, "mprotect failed");
    expect(pte_writable(vm_pte(withheld_area)), "the area is not writable again");
    return t;
}

BENCH_DEFINE(xen_mprotect_512_withheld, xen,
             "`mprotect_512` with its batches built but not issued: the guest's share",
             .needs = PV_CAP_XEN_PV, .iters = WITHHELD_ITERS, .subtract_loop = true,
             .prepare = prepare_withheld, .measure = measure_withheld, .check = check_withheld);
