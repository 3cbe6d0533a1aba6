/* Native TLB shootdowns: the CPU that changed ptes sends an IPI to each
 * CPU that may cache them and waits until every one has flushed. CR3 and
 * local flushes are the registry's instructions (arch/x86/native/insns.c).
 *
 * One request at a time, in a shared slot: the sender fills in the range,
 * sets a pending bit per target and sends the IPIs; each target flushes
 * and clears its bit; the sender returns once no bit is left. A CPU
 * waiting for the slot serves any request meant for it while it waits:
 * two CPUs shooting at each other with interrupts off would otherwise
 * each wait for the other forever. */
#include "arch/x86/lapic.h"
#include "arch/x86/native/backend.h"
#include "arch/x86/trap_frame.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "mm/mm_stats.h"
#include "mm/tlb.h"

#define SHOOTDOWN_TIMEOUT_NS NSEC_PER_SEC

static struct {
    uint64_t start, end;
    unsigned pending; /* a bit per CPU that has still to flush */
    unsigned busy;    /* a sender owns the slot */
} request;

/* The pending bit is published after the range (release), so seeing it
 * (acquire) means the range is the one meant. */
static void serve_request(void)
{
    unsigned me = 1u << cpu_index();

    if (!(__atomic_load_n(&request.pending, __ATOMIC_ACQUIRE) & me))
        return;
    tlb_flush_local(request.start, request.end);
    __atomic_fetch_and(&request.pending, ~me, __ATOMIC_RELEASE);
}

/* A pause: on hardware it lets the sibling thread run; under QEMU it
 * ends the CPU's turn. */
static void pause_once(unsigned cpus)
{
    (void)cpus;
    __builtin_ia32_pause();
}

void (*native_wait_for_cpus)(unsigned cpus) = pause_once;

static void on_shootdown_ipi(struct trap_frame *f)
{
    (void)f;
    serve_request();
    lapic_eoi();
}

/* Bounded: a CPU that keeps interrupts off (spinning on a lock whose
 * holder is here, say) would otherwise hang the run without a word. */
static void wait_for_flushes(void)
{
    uint64_t deadline = time_now_ns() + SHOOTDOWN_TIMEOUT_NS;
    unsigned pending;

    while ((pending = __atomic_load_n(&request.pending, __ATOMIC_ACQUIRE))) {
        if (time_now_ns() > deadline)
            panic("tlb: CPUs 0x%x never flushed for a shootdown: interrupts off for a second",
                  pending);
        native_wait_for_cpus(pending);
    }
}

void native_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end)
{
    while (__atomic_exchange_n(&request.busy, 1, __ATOMIC_ACQUIRE)) {
        serve_request();
        __builtin_ia32_pause();
    }
    request.start = start;
    request.end = end;
    __atomic_store_n(&request.pending, cpus, __ATOMIC_RELEASE);
    native_ipi_many(cpus, LAPIC_TLB_VECTOR);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpus & (1u << cpu))
            mm_stats_add(MM_SHOOTDOWN_IPIS, 1);
    wait_for_flushes();
    __atomic_store_n(&request.busy, 0, __ATOMIC_RELEASE);
}

void native_shootdown_init(void)
{
    trap_set_handler(LAPIC_TLB_VECTOR, on_shootdown_ipi);
}
