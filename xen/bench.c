/* Benchmarks only a Xen PV guest can run, registered with bench/ like any
 * other (each needs PV_CAP_XEN_PV: natively they print a skipped line). The costs
 * everything else under Xen is built from: a hypercall round trip, a
 * multicall batching N of them into one entry to Xen, and an event sent
 * to ourselves and delivered back through the upcall. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/percpu.h"
#include "kernel/string.h"
#include "mm/frame_alloc.h"
#include "mm/pgtable.h"
#include "mm/pt_walk.h"
#include "mm/vm.h"
#include "pv/irq.h"
#include "pv/mmu.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define HYPERCALL_ITERS 20000
#define MULTICALL_ITERS 5000
#define EVTCHN_ITERS 5000
#define MULTICALL_MAX 16
#define DELIVERY_SPINS 1000000 /* an event not delivered by then never will be */

/* How pte updates reach Xen changes every page-table benchmark: each
 * result under Xen names the mode it ran in. */
BENCH_CONFIG_OPTION(xen_mmu, PV_CAP_XEN_PV, "xen.mmu");
/* Hypercalls through the hypercall page are a variant; inline is usual. */
BENCH_CONFIG_OPTION_UNLESS(xen_hypercall, PV_CAP_XEN_PV, "xen.hypercall", "inline");

static const char *problem;
static long xen_version; /* what XENVER_version said before the benchmark */

static void expect(bool ok, const char *what)
{
    if (!ok && !problem)
        problem = what;
}

static const char *prepare_xen(void)
{
    problem = 0;
    xen_version = HYPERVISOR_xen_version(XENVER_version, 0);
    expect(xen_version > 0, "xen_version returned no version");
    return problem;
}

static const char *check_xen(void)
{
    return problem;
}

/* ---- xen_hypercall: the cheapest hypercall there is, and the one Xen's
 * own tests use as a null call: XENVER_version. */

static uint64_t measure_hypercall(uint64_t n)
{
    uint64_t wrong = 0;
    uint64_t t =
        BENCH_TIME_LOOP(n, wrong += HYPERVISOR_xen_version(XENVER_version, 0) != xen_version);

    expect(wrong == 0, "xen_version returned something other than Xen's version");
    return t;
}

BENCH_DEFINE(xen_hypercall, xen, "`HYPERVISOR_xen_version(XENVER_version)`: a hypercall round trip",
             .needs = PV_CAP_XEN_PV, .iters = HYPERCALL_ITERS, .subtract_loop = true,
             .prepare = prepare_xen, .measure = measure_hypercall, .check = check_xen);

/* ---- xen_multicall_N: one multicall of N xen_version entries. Results are
 * reset first, so the last call's must all be Xen's version. */

static struct multicall_entry calls[MULTICALL_MAX];

static uint64_t measure_multicall(unsigned count, uint64_t n)
{
    long rc = 0;

    for (unsigned i = 0; i < count; i++)
        calls[i] = (struct multicall_entry){
            .op = __HYPERVISOR_xen_version, .result = -1, .args = {XENVER_version, 0}};
    uint64_t t = BENCH_TIME_LOOP(n, rc |= HYPERVISOR_multicall(calls, count));
    expect(rc == 0, "multicall failed");
    for (unsigned i = 0; i < count; i++)
        expect(calls[i].result == (xen_ulong_t)xen_version, "a multicall entry did not run");
    return t;
}

static uint64_t measure_multicall_1(uint64_t n)
{
    return measure_multicall(1, n);
}

static uint64_t measure_multicall_16(uint64_t n)
{
    return measure_multicall(16, n);
}

BENCH_DEFINE(xen_multicall_1, xen, "one multicall of 1 `xen_version` entry", .needs = PV_CAP_XEN_PV,
             .iters = MULTICALL_ITERS, .subtract_loop = true, .prepare = prepare_xen,
             .measure = measure_multicall_1, .check = check_xen);
BENCH_DEFINE(xen_multicall_16, xen, "one multicall of 16 `xen_version` entries",
             .needs = PV_CAP_XEN_PV, .iters = MULTICALL_ITERS, .subtract_loop = true,
             .prepare = prepare_xen, .measure = measure_multicall_16, .check = check_xen);

/* ---- xen_evtchn_self: EVTCHNOP_send on an IPI port bound to this vCPU,
 * then wait until the upcall has run its handler. With events unmasked Xen
 * delivers on the send's own return, so the wait is normally one look. */

static volatile uint64_t delivered;
static evtchn_port_t self_port;
static bool self_port_bound;

static void count_delivery(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data;
    delivered++;
}

static const char *prepare_evtchn(void)
{
    if (!self_port_bound) {
        /* This vCPU's: should the thread move, the event still arrives,
         * on the vCPU it was bound to. */
        self_port = xen_bind_ipi(cpu_index(), count_delivery, 0);
        xen_evtchn_unmask(self_port);
        self_port_bound = true;
    }
    return prepare_xen();
}

static bool wait_for_delivery(uint64_t before)
{
    for (uint64_t spins = 0; delivered == before; spins++)
        if (spins == DELIVERY_SPINS)
            return false;
    return true;
}

static uint64_t measure_evtchn_self(uint64_t n)
{
    struct evtchn_send send = {.port = self_port};
    uint64_t failed = 0, lost = 0;
    uint64_t t = BENCH_TIME_LOOP(n, {
        uint64_t before = delivered;
        failed += HYPERVISOR_event_channel_op(EVTCHNOP_send, &send) != 0;
        lost += !wait_for_delivery(before);
    });

    expect(failed == 0, "EVTCHNOP_send failed");
    expect(lost == 0, "an event sent to ourselves was not delivered");
    return t;
}

BENCH_DEFINE(xen_evtchn_self, xen,
             "`EVTCHNOP_send` on an IPI port bound to ourselves, until its handler has run",
             .needs = PV_CAP_XEN_PV, .iters = EVTCHN_ITERS, .subtract_loop = true,
             .prepare = prepare_evtchn, .measure = measure_evtchn_self, .check = check_xen);

/* ---- xen_mprotect_512_withheld: mprotect_512's own work, the same
 * batches built and queued but never issued (xen_mmu_withhold), so
 * mprotect_512 less this is what the hypercalls cost: Xen's validation
 * of each entry and the transitions into Xen and back. Interrupts are off
 * so nothing else queues meanwhile. The page tables never change, so the
 * area's rights are put back by a real mprotect after the loop. */

#define WITHHELD_PAGES 512
#define WITHHELD_ITERS 20

static uint8_t *withheld_area;

/* Mapped once, kept for every run, shared with xen_l1_swap_512. */
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
    return prepare_xen();
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
             .prepare = prepare_withheld, .measure = measure_withheld, .check = check_xen);

/* ---- xen_l1_swap_512: what Xen charges to replace a whole L1 table
 * instead of updating its entries one by one, the floor under a
 * whole-table pte mode (issue point 4, not built yet). The area's L1 is
 * copied, entry for entry, into a fresh frame; the frame is made
 * read-only and one mmu_update points the area's L2 entry at it; then the
 * L2 entry is pointed back and the frame made writable again. So each op
 * is two swaps: Xen validates each table as it is linked (a reference per
 * present entry) and, unpinned, unvalidates each as its last link goes (a
 * reference dropped per entry). The contents never change, so nothing
 * the area maps changes either. Events stay masked throughout, and no
 * other code writes that L1 in between (one vCPU). */

static uint64_t swap_frame; /* the copy's pseudo-physical address */
static uint64_t swap_l2e_maddr;
static pte_t *swap_l1;
static pte_t swap_l2e;

static const char *prepare_swap(void)
{
    struct pt_walk w;
    pte_t *l2e;

    if (!swap_frame)
        swap_frame = frame_alloc();
    if (!map_withheld_area() || !swap_frame)
        return "no memory for the benchmark";
    l2e = pt_walk(read_cr3(), (uint64_t)withheld_area, 2, PT_NO_ALLOC, &w);
    if (!l2e || w.level != 2 || !pte_present(*l2e) || pte_is_leaf(*l2e, 2))
        return "the area has no L1 table";
    swap_l2e = *l2e;
    swap_l2e_maddr = virt_to_maddr(l2e);
    swap_l1 = pt_table_at(pte_addr(*l2e));
    return prepare_xen();
}

static void remap(uint64_t pa, bool writable)
{
    uint64_t pte = virt_to_maddr((void *)pa) | PTE_P | PTE_A | PTE_NX | (writable ? PTE_W : 0);

    expect(HYPERVISOR_update_va_mapping(pa, pte, UVMF_INVLPG) == 0, "update_va_mapping failed");
}

static void link_l1(uint64_t l1_maddr)
{
    struct mmu_update u = {.ptr = swap_l2e_maddr | MMU_NORMAL_PT_UPDATE,
                           .val = l1_maddr | (swap_l2e & ~PTE_ADDR_MASK)};
    struct mmuext_op flush = {.cmd = MMUEXT_TLB_FLUSH_LOCAL};

    expect(HYPERVISOR_mmu_update(&u, 1, 0, DOMID_SELF) == 0, "mmu_update of the L2 entry failed");
    expect(HYPERVISOR_mmuext_op(&flush, 1, 0, DOMID_SELF) == 0, "TLB flush failed");
}

static uint64_t measure_swap(uint64_t n)
{
    unsigned long flags = irq_save();
    uint64_t t = BENCH_TIME_LOOP(n, {
        memcpy((void *)swap_frame, swap_l1, PAGE_SIZE);
        remap(swap_frame, false);
        link_l1(virt_to_maddr((void *)swap_frame));
        link_l1(pte_addr(swap_l2e));
        remap(swap_frame, true);
    });

    irq_restore(flags);
    expect(pt_table_at(pte_addr(swap_l2e)) == swap_l1, "the area's L1 moved");
    return t;
}

BENCH_DEFINE(xen_l1_swap_512, xen,
             "a whole L1 replaced by a copy and put back: two validations and two unvalidations "
             "of 512 entries",
             .needs = PV_CAP_XEN_PV, .iters = WITHHELD_ITERS, .subtract_loop = true,
             .prepare = prepare_swap, .measure = measure_swap, .check = check_xen);
