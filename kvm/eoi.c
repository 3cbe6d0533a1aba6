/* KVM's PV EOI: where KVM injects an interrupt whose end it can see by
 * itself (edge-triggered, nothing else in service), it sets a bit in a
 * word of the guest's, and the handler that finds it set skips the EOI
 * register's write, an exit to KVM. */
#include <asm/kvm_para.h>

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kvm/backend.h"

/* KVM ABI (Documentation/virt/kvm/x86/msr.rst, MSR_KVM_PV_EOI_EN): each
 * vCPU's word is 4 bytes, 4-byte aligned, zero when registered. */
static uint32_t words[MAX_CPUS];
static uint64_t skipped[MAX_CPUS], written[MAX_CPUS]; /* each CPU's own, in its handlers */
static bool enabled;

/* KVM ABI: bit 0 of the MSR enables the word at the rest, the calling
 * vCPU's; the kernel image is mapped at its physical address. */
static void register_word(unsigned cpu)
{
    wrmsr(MSR_KVM_PV_EOI_EN, (uint64_t)(uintptr_t)&words[cpu] | KVM_MSR_ENABLED);
}

void kvm_eoi_init(void)
{
    enabled = true;
    register_word(cpu_index());
}

void kvm_eoi_cpu_start(unsigned cpu)
{
    if (enabled)
        register_word(cpu);
}

/* KVM ABI: the guest clears the bit with one atomic operation, racing
 * KVM's setting it; found set, KVM has ended the interrupt already. */
void kvm_eoi(void)
{
    unsigned cpu = cpu_index();

    if (__atomic_fetch_and(&words[cpu], ~(uint32_t)KVM_PV_EOI_MASK, __ATOMIC_SEQ_CST) &
        KVM_PV_EOI_MASK) {
        skipped[cpu]++;
        return;
    }
    written[cpu]++;
    lapic_eoi_write();
}

/* kvm.eoi=off: the register's write alone, counted as kvm_eoi counts it. */
void kvm_eoi_write(void)
{
    written[cpu_index()]++;
    lapic_eoi_write();
}

/* One line: the EOIs every CPU skipped and wrote so far. */
void kvm_eoi_report(unsigned cpus)
{
    uint64_t skips = 0, writes = 0;

    for (unsigned cpu = 0; cpu < cpus; cpu++) {
        skips += __atomic_load_n(&skipped[cpu], __ATOMIC_RELAXED);
        writes += __atomic_load_n(&written[cpu], __ATOMIC_RELAXED);
    }
    kprintf("kvm: EOIs: %lu skipped (PV EOI), %lu written\n", skips, writes);
}
