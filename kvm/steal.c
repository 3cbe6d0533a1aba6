/* KVM's steal time: per vCPU, the time KVM's host held it runnable but
 * did not run it, which KVM adds up in a record of the guest's, beside a
 * flag saying it is preempted now (what PV TLB flush reads). Each CPU
 * registers its own record as it starts (kvm/install.c). */
#include <asm/kvm_para.h>

#include "arch/x86/cpu.h"
#include "kernel/compiler.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kvm/backend.h"

/* KVM ABI (Documentation/virt/kvm/x86/msr.rst, MSR_KVM_STEAL_TIME): the
 * record is 64-byte aligned (the MSR's low 6 bits are flags). */
static struct kvm_steal_time records[MAX_CPUS] __attribute__((aligned(64)));
static bool enabled;

/* KVM ABI: bit 0 of the MSR enables the record at the rest, the calling
 * vCPU's; the kernel image is mapped at its physical address. */
static void register_record(unsigned cpu)
{
    wrmsr(MSR_KVM_STEAL_TIME, (uint64_t)(uintptr_t)&records[cpu] | KVM_MSR_ENABLED);
}

void kvm_steal_cpu_start(unsigned cpu)
{
    if (enabled)
        register_record(cpu);
}

void kvm_steal_init(void)
{
    enabled = true;
    register_record(cpu_index());
}

/* KVM ABI: KVM bumps version before and after an update, as a pvclock
 * record's: an odd or changed version is a torn read. */
uint64_t kvm_steal_ns(unsigned cpu)
{
    const volatile struct kvm_steal_time *st = &records[cpu];
    uint32_t version;
    uint64_t steal;

    do {
        version = st->version;
        compiler_barrier();
        steal = st->steal;
        compiler_barrier();
    } while ((version & 1) || version != st->version);
    return steal;
}

/* KVM ABI (KVM_VCPU_PREEMPTED): set while KVM holds the vCPU runnable
 * but not running; a vCPU that halted is not flagged. */
bool kvm_steal_preempted(unsigned cpu)
{
    return enabled &&
           (__atomic_load_n(&records[cpu].preempted, __ATOMIC_RELAXED) & KVM_VCPU_PREEMPTED);
}

/* KVM ABI (KVM_VCPU_FLUSH_TLB): set beside KVM_VCPU_PREEMPTED, KVM
 * flushes the vCPU's TLB before it runs again; KVM clears the byte as it
 * resumes the vCPU, so the cmpxchg fails if it ran meanwhile. */
bool kvm_steal_flag_flush(unsigned cpu)
{
    uint8_t seen;

    if (!enabled)
        return false;
    seen = __atomic_load_n(&records[cpu].preempted, __ATOMIC_RELAXED);
    return (seen & KVM_VCPU_PREEMPTED) &&
           __atomic_compare_exchange_n(&records[cpu].preempted, &seen, seen | KVM_VCPU_FLUSH_TLB,
                                       false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* One line: each CPU's steal so far, in ms. */
void kvm_steal_report(unsigned cpus)
{
    if (!enabled) {
        kprintf("kvm: steal time off\n");
        return;
    }
    kprintf("kvm: steal time:");
    for (unsigned cpu = 0; cpu < cpus; cpu++) {
        uint64_t us = kvm_steal_ns(cpu) / 1000;

        kprintf(" cpu%u %lu.%03lu ms", cpu, us / 1000, us % 1000);
    }
    kprintf("\n");
}
