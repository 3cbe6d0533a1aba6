/* kvm-clock: KVM's pvclock, each vCPU's record in the layout of Xen's
 * vcpu_time_info, read by the reader Xen's clock uses (arch/x86/pvclock.h).
 * Where KVM offers it, it also states the TSC's rate and is what the
 * APIC timer is calibrated against: the PIT KVM emulates, read through a
 * port that exits to the host, disturbs every pass of the native way. */
#include <asm/kvm_para.h>

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/native/backend.h"
#include "arch/x86/pvclock_kernel.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kvm/backend.h"
#include "pv/irq.h"

/* KVM ABI (Documentation/virt/kvm/x86/msr.rst): a record is 4-byte aligned
 * and may not cross a page; each aligned to its size, none does. */
static struct vcpu_time_info records[MAX_CPUS] __attribute__((aligned(32)));
static bool registered[MAX_CPUS];
static struct pvclock_latest latest;
static int64_t offset_ns; /* kvm-clock to the kernel's clock, set at the switch */

/* KVM ABI: MSR_KVM_SYSTEM_TIME_NEW names the calling vCPU's record (bit 0
 * enables it), which KVM fills before the guest runs on; the kernel image
 * is mapped at its physical address. */
static void register_record(unsigned cpu)
{
    wrmsr(MSR_KVM_SYSTEM_TIME_NEW, (uint64_t)(uintptr_t)&records[cpu] | KVM_MSR_ENABLED);
    registered[cpu] = true;
    if (cpu)
        __atomic_store_n(&latest.several, true, __ATOMIC_RELAXED);
}

/* A CPU's first read registers its record: no other hook runs on every
 * CPU as it starts, and this one runs with interrupts off, on that CPU. */
static const volatile struct vcpu_time_info *clock_record(unsigned cpu)
{
    if (!registered[cpu])
        register_record(cpu);
    return &records[cpu];
}

static const struct pvclock_hooks hooks = PVCLOCK_KERNEL_HOOKS(clock_record);

/* kvm-clock itself: ns since KVM started the VM, never back across vCPUs. */
static uint64_t raw_ns(void)
{
    uint8_t flags;
    uint64_t ns = pvclock_cpu_ns(&hooks, &flags);

    return pvclock_never_back(&latest, ns, flags);
}

uint64_t kvm_clock_now_ns(void)
{
    return raw_ns() + (uint64_t)offset_ns;
}

/* Deadlines are the kernel's clock's; the APIC timer counts a delay. */
void kvm_lapic_timer_oneshot(uint64_t deadline_ns)
{
    uint64_t now = kvm_clock_now_ns();

    lapic_timer_oneshot_ns(deadline_ns > now ? deadline_ns - now : 0);
}

/* The TSC's rate from CPU 0's record and the APIC timer's against
 * kvm-clock, in place of the PIT's; false when KVM offers no kvm-clock. */
bool kvm_clock_init(uint32_t features)
{
    uint64_t tsc_hz, apic_hz;

    if (!(features & (1u << KVM_FEATURE_CLOCKSOURCE2)))
        return false;
    register_record(0);
    tsc_hz = pvclock_tsc_hz(&records[0]);
    apic_hz = lapic_timer_measure_hz(raw_ns);
    if (!tsc_hz || !apic_hz)
        panic("kvm: kvm-clock states no TSC rate, or the APIC timer did not advance against it");
    native_time_set_rates(tsc_hz, apic_hz,
                          "the TSC's as kvm-clock states it, the APIC timer's against kvm-clock");
    return true;
}

/* From here on the kernel's clock is kvm-clock, continuing from where
 * the TSC's left it. */
void kvm_clock_switch(void)
{
    offset_ns = (int64_t)(native_now_ns() - raw_ns());
}

/* pvclock ABI: whether CPU 0's record says every vCPU's clock is one. */
bool kvm_clock_stable(void)
{
    return records[0].flags & XEN_PVCLOCK_TSC_STABLE_BIT;
}
