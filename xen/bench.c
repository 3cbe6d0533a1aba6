/* Benchmarks only a Xen guest, PV or PVH, can run, registered with bench/
 * like any other (each needs PV_CAP_XEN: natively they print a skipped
 * line). The costs everything else under Xen is built from: a hypercall
 * round trip, a multicall batching N of them into one entry to Xen, and an
 * event sent to ourselves and delivered back through the upcall. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/percpu.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define HYPERCALL_ITERS 20000
#define MULTICALL_ITERS 5000
#define EVTCHN_ITERS 5000
#define MULTICALL_MAX 16
#define DELIVERY_SPINS 1000000 /* an event not delivered by then never will be */

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
             .needs = PV_CAP_XEN, .iters = HYPERCALL_ITERS, .subtract_loop = true,
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

BENCH_DEFINE(xen_multicall_1, xen, "one multicall of 1 `xen_version` entry", .needs = PV_CAP_XEN,
             .iters = MULTICALL_ITERS, .subtract_loop = true, .prepare = prepare_xen,
             .measure = measure_multicall_1, .check = check_xen);
BENCH_DEFINE(xen_multicall_16, xen, "one multicall of 16 `xen_version` entries",
             .needs = PV_CAP_XEN, .iters = MULTICALL_ITERS, .subtract_loop = true,
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
             .needs = PV_CAP_XEN, .iters = EVTCHN_ITERS, .subtract_loop = true,
             .prepare = prepare_evtchn, .measure = measure_evtchn_self, .check = check_xen);
