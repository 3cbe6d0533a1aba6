/* KVM's steal time: per vCPU, the time KVM's host held it runnable but
 * did not run it, which KVM adds up in a record of the guest's. Each CPU
 * registers its own record as it starts: the one op every CPU runs then
 * is setting its per-CPU base, which the KVM backend wraps. */
#include <asm/kvm_para.h>

#include "arch/x86/cpu.h"
#include "arch/x86/native/backend.h"
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

void kvm_steal_set_percpu_base(uint64_t base)
{
    native_set_percpu_base(base);
    if (enabled)
        register_record(cpu_index());
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
