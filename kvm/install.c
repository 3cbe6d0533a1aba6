/* Installing the KVM backend: the native backend's tables, which the
 * hardware virtualizes, with KVM's own ops composed in per op. */
#include <asm/kvm_para.h>

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/native/backend.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kvm/backend.h"
#include "kvm/hypercall.h"

/* The ops that work both ways under KVM: KVM's paravirtual one (the
 * default, what Linux chooses) or the emulated hardware's, so the
 * benchmarks can set one against the other. */
enum { CLOCK_KVMCLOCK, CLOCK_TSC };
static const char *const clock_choices[] = {"kvmclock", "tsc", 0};
static int clock_choice = CLOCK_KVMCLOCK;
OPTION_ENUM_WHERE(PV_CAP_KVM, clock_choice, "kvm.clock", clock_choices,
                  "KVM: the clock from kvm-clock (MSR_KVM_SYSTEM_TIME_NEW) or the raw TSC");

enum { IPI_PV, IPI_LAPIC };
static const char *const ipi_choices[] = {"pv", "lapic", 0};
static int ipi_choice = IPI_PV;
OPTION_ENUM_WHERE(PV_CAP_KVM, ipi_choice, "kvm.ipi", ipi_choices,
                  "KVM: IPIs and shootdowns by KVM_HC_SEND_IPI or through the LAPIC's ICR");

static bool steal_time = true;
OPTION_BOOL_WHERE(PV_CAP_KVM, steal_time, "kvm.steal",
                  "KVM: steal time (MSR_KVM_STEAL_TIME), each CPU's reported after the self-tests");

static bool pv_eoi = true;
OPTION_BOOL_WHERE(
    PV_CAP_KVM, pv_eoi, "kvm.eoi",
    "KVM: PV EOI (MSR_KVM_PV_EOI_EN) skips the EOI write KVM says it may, or writes each");

static bool pv_tlb = true;
OPTION_BOOL_WHERE(
    PV_CAP_KVM, pv_tlb, "kvm.tlb",
    "KVM: PV TLB flush flags a preempted vCPU (KVM_VCPU_FLUSH_TLB), or sends it an IPI");

static bool pv_yield = true;
OPTION_BOOL_WHERE(PV_CAP_KVM, pv_yield, "kvm.yield",
                  "KVM: a shootdown's wait yields to a preempted target (KVM_HC_SCHED_YIELD), "
                  "or spins");

static uint32_t features;   /* KVM_FEATURE_* bits KVM offers */
static bool have_kvm_clock; /* KVM offers kvm-clock, and it set the rates */

static bool offers(unsigned feature)
{
    return features & (1u << feature);
}

static const char *clock_name(void)
{
    if (!have_kvm_clock)
        return "the TSC (KVM offers no kvm-clock)";
    if (clock_choice == CLOCK_TSC)
        return "the TSC (kvm.clock=tsc)";
    return kvm_clock_stable() ? "kvm-clock (kvm.clock=kvmclock), stable across vCPUs"
                              : "kvm-clock (kvm.clock=kvmclock), per vCPU";
}

static const char *ipi_name(void)
{
    if (native_ipi_many == kvm_ipi_many)
        return "KVM_HC_SEND_IPI (kvm.ipi=pv)";
    return ipi_choice == IPI_LAPIC ? "through the LAPIC (kvm.ipi=lapic)"
                                   : "through the LAPIC (KVM offers no PV send-IPI)";
}

/* One line per op KVM may take over: whose way it is, and why. */
static void print_choices(void)
{
    bool tlb_flags = kvm_tlb_flags();

    kprintf("kvm: IPIs %s\n", ipi_name());
    kprintf("kvm: clock %s\n", clock_name());
    kprintf("kvm: EOIs %s\n", lapic_eoi == kvm_eoi ? "by PV EOI (kvm.eoi=on)"
                              : pv_eoi             ? "written (KVM offers no PV EOI)"
                                                   : "written (kvm.eoi=off)");
    kprintf("kvm: spinlocks %s\n", spin_lock_kind());
    kprintf("kvm: shootdowns %s\n", tlb_flags ? "flag preempted vCPUs (kvm.tlb=on)"
                                    : pv_tlb
                                        ? "by IPI (KVM offers no PV TLB flush, or kvm.steal=off)"
                                        : "by IPI (kvm.tlb=off)");
    kprintf("kvm: waits for a preempted vCPU %s\n",
            native_wait_for_cpus == kvm_yield_wait ? "yield to it (kvm.yield=on)"
            : pv_yield ? "spin (KVM offers no PV sched yield, or kvm.steal=off)"
                       : "spin (kvm.yield=off)");
}

/* Once the options are read, before anything is armed or any IPI sent:
 * the slots each per-op choice decides. */
static void kvm_setup(void)
{
    native_setup();
    if (clock_choice == CLOCK_KVMCLOCK && have_kvm_clock) {
        kvm_clock_switch();
        pv_time_ops.now_ns = kvm_clock_now_ns;
        pv_time_ops.timer_oneshot = kvm_lapic_timer_oneshot;
    }
    if (ipi_choice == IPI_PV && offers(KVM_FEATURE_PV_SEND_IPI))
        native_ipi_many = kvm_ipi_many;
    bool steal_on = steal_time && offers(KVM_FEATURE_STEAL_TIME);
    if (steal_on)
        kvm_steal_init();
    if (pv_eoi && offers(KVM_FEATURE_PV_EOI)) {
        kvm_eoi_init();
        lapic_eoi = kvm_eoi;
    }
    /* KVM ABI: the flush flag and the preempted flag live in the steal
     * time record. */
    kvm_tlb_init(pv_tlb && offers(KVM_FEATURE_PV_TLB_FLUSH) && steal_on);
    if (pv_yield && offers(KVM_FEATURE_PV_SCHED_YIELD) && steal_on)
        native_wait_for_cpus = kvm_yield_wait;
    print_choices();
}

/* What each of KVM's ops did so far: the IPIs' hypercalls, the host's
 * steal, the EOIs skipped; then the shootdowns of a spinning CPU 1, and
 * how many were flagged; the waits' yields; the lock's halts and kicks. */
static void kvm_selftest(void)
{
    native_selftest();
    kprintf("kvm: %lu KVM_HC_SEND_IPI hypercalls\n", kvm_ipi_hypercalls());
    kvm_steal_report(smp_cpus_online());
    kvm_eoi_report(smp_cpus_online());
    kvm_tlb_selftest();
    kvm_tlb_report();
    kvm_yield_report();
    kprintf("kvm: spinlock waiters halted %lu times, kicked %lu times\n",
            pv_lock_counter(pv_lock_ops.blocked), pv_lock_counter(pv_lock_ops.kicked));
}

/* Each CPU sets its per-CPU base as it starts: there it registers what
 * KVM keeps per vCPU, once the options are read. */
static void kvm_set_percpu_base(uint64_t base)
{
    native_set_percpu_base(base);
    kvm_steal_cpu_start(cpu_index());
    kvm_eoi_cpu_start(cpu_index());
}

/* AMD's and Hygon's CPUs take vmmcall; Intel's vmcall. */
static bool cpu_is_amd(void)
{
    struct cpuid_regs r = cpuid(0, 0);

    return r.ebx == 0x68747541 || r.ebx == 0x6f677948; /* "Auth", "Hygo" */
}

/* Under KVM the CPU runs the guest's own instructions: the irq, mmu and
 * patch tables are the native backend's whole, as are the machine (COM1,
 * isa-debug-exit) and the CPU's; KVM's ops replace the native ones where
 * kvm_setup picks them, once the options are read. */
void kvm_install(uint32_t base)
{
    native_install();
    features = kvm_cpuid_features(native_cpuid, base);
    pv_info = (struct pv_info){.name = "kvm",
                               .caps = PV_CAP_KVM | PV_CAP_NATIVE_SITES | PV_CAP_CALIBRATES};
    pv_machine_ops.setup = kvm_setup;
    pv_machine_ops.selftest = kvm_selftest;
    pv_cpu_ops.set_percpu_base = kvm_set_percpu_base;
    /* Shootdowns flag preempted vCPUs, IPIs to the rest; the counts either way. */
    pv_mmu_ops.flush_tlb_others = kvm_flush_tlb_others;
    lapic_eoi = kvm_eoi_write;
    /* Contended locks halt and kick, unless kvm.lock=off. */
    if (offers(KVM_FEATURE_PV_UNHALT))
        pv_lock_ops = kvm_lock_ops;
    kvm_vmmcall = cpu_is_amd();
    /* Time: the TSC at the rate kvm-clock states, the APIC timer measured
     * against it; kvm-clock itself the clock unless kvm.clock=tsc. */
    have_kvm_clock = kvm_clock_init(features);
}
