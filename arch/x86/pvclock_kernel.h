/* The kernel's hooks for the pvclock reader (arch/x86/pvclock.h), shared
 * by Xen's clock (xen/time.c) and kvm-clock (kvm/clock.c): interrupts off
 * through the irq ops, this CPU's index, the ordered TSC. Only where a
 * vCPU's record lives differs, so each clock names its record function.
 * The hooks are constant, so pvclock_cpu_ns() inlines them. */
#ifndef ARCH_X86_PVCLOCK_KERNEL_H
#define ARCH_X86_PVCLOCK_KERNEL_H

#include "arch/x86/cpu.h"
#include "arch/x86/pvclock.h"
#include "kernel/percpu.h"
#include "pv/irq.h"

static inline unsigned long pvclock_kernel_irq_save(void)
{
    return irq_save();
}

static inline void pvclock_kernel_irq_restore(unsigned long flags)
{
    irq_restore(flags);
}

static inline unsigned pvclock_kernel_cpu(void)
{
    return cpu_index();
}

#define PVCLOCK_KERNEL_HOOKS(record_fn)                                                            \
    {                                                                                              \
        .irq_save = pvclock_kernel_irq_save, .irq_restore = pvclock_kernel_irq_restore,            \
        .cpu = pvclock_kernel_cpu, .record = (record_fn), .tsc = rdtsc_ordered,                    \
    }

#endif
