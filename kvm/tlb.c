/* KVM's PV TLB flush: a vCPU that KVM preempted uses no translation
 * until KVM runs it again, and KVM flushes its TLB first if its steal
 * time record asks (KVM_VCPU_FLUSH_TLB). So a shootdown flags each
 * preempted target instead of sending an IPI that would wait for it to be
 * rescheduled, and sends the native IPIs to the rest. */
#include "arch/x86/cpu.h"
#include "arch/x86/native/backend.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kvm/backend.h"
#include "mm/pgtable.h"
#include "mm/tlb.h"

#define SELFTEST_SHOOTDOWNS 200
#define SPINS_PER_EXIT_MASK ((1u << 18) - 1)

static bool flags_on; /* kvm.tlb=on, with steal time's records to flag */
static uint64_t by_flag, by_ipi;

void kvm_tlb_init(bool use_flags)
{
    flags_on = use_flags;
}

bool kvm_tlb_flags(void)
{
    return flags_on;
}

void kvm_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end)
{
    unsigned ipis = 0, flagged = 0, sent = 0;

    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!(cpus & (1u << cpu)))
            continue;
        if (flags_on && kvm_steal_flag_flush(cpu)) {
            flagged++;
            continue;
        }
        ipis |= 1u << cpu;
        sent++;
    }
    __atomic_fetch_add(&by_flag, flagged, __ATOMIC_RELAXED);
    __atomic_fetch_add(&by_ipi, sent, __ATOMIC_RELAXED);
    if (ipis)
        native_flush_tlb_others(ipis, start, end);
}

static bool spinning, stop_spinning;

/* Guest code that seldom exits, so that KVM mostly deschedules the vCPU
 * at the host's tick, where it marks it preempted. A CPUID (an exit) now
 * and then lets L1 see a request it failed to interrupt us for: a loop
 * with no exit at all once left both of L1's CPUs stuck. */
static void spin_until_stopped(void *arg)
{
    (void)arg;
    __atomic_store_n(&spinning, true, __ATOMIC_RELEASE);
    for (unsigned i = 1; !__atomic_load_n(&stop_spinning, __ATOMIC_ACQUIRE); i++)
        if (!(i & SPINS_PER_EXIT_MASK))
            (void)cpuid(0, 0);
}

/* Shootdowns of one page while CPU 1 spins: on a host CPU of its own it
 * takes IPIs; sharing one with CPU 0 it is mostly preempted when CPU 0
 * runs, and flagged. */
void kvm_tlb_selftest(void)
{
    static char page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
    uint64_t start = (uint64_t)(uintptr_t)page;
    struct thread *t;

    if (smp_cpus_online() < 2)
        return;
    t = thread_create_on(1, "kvm-tlb-spin", spin_until_stopped, 0);
    if (!t)
        panic("kvm: no thread for the TLB self-test");
    while (!__atomic_load_n(&spinning, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
    uint64_t began = time_now_ns();
    for (unsigned i = 0; i < SELFTEST_SHOOTDOWNS; i++)
        tlb_flush_all_cpus(start, start + PAGE_SIZE);
    uint64_t ns = (time_now_ns() - began) / SELFTEST_SHOOTDOWNS;
    __atomic_store_n(&stop_spinning, true, __ATOMIC_RELEASE);
    thread_join(t);
    kprintf("kvm: TLB self-test: %u shootdowns of a spinning CPU 1, %lu.%03lu us each\n",
            SELFTEST_SHOOTDOWNS, ns / 1000, ns % 1000);
}

/* One line: how the other vCPUs' TLBs were flushed so far. */
void kvm_tlb_report(void)
{
    kprintf("kvm: TLB shootdowns: %lu vCPUs flagged (PV TLB flush), %lu sent an IPI\n",
            __atomic_load_n(&by_flag, __ATOMIC_RELAXED),
            __atomic_load_n(&by_ipi, __ATOMIC_RELAXED));
}
