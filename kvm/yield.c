/* KVM's PV sched yield: a vCPU waiting for another to answer (a
 * shootdown's target, which must run to flush) that finds it preempted in
 * its steal time record gives its host CPU to that vCPU with one
 * KVM_HC_SCHED_YIELD, instead of spinning out the rest of its slice. */
#include <linux/kvm_para.h>

#include "arch/x86/native/backend.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kvm/backend.h"
#include "kvm/hypercall.h"

static uint64_t yields;

/* KVM ABI (KVM_HC_SCHED_YIELD): the target's APIC id; KVM yields to it
 * if it is runnable, and returns 0 whether it did or not. One yield a
 * step: the first preempted CPU of the set, or a pause if none is. */
void kvm_yield_wait(unsigned cpus)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!(cpus & (1u << cpu)) || !kvm_steal_preempted(cpu))
            continue;
        __atomic_fetch_add(&yields, 1, __ATOMIC_RELAXED);
        kvm_hypercall4(KVM_HC_SCHED_YIELD, native_cpu_apic_id(cpu), 0, 0, 0);
        return;
    }
    __builtin_ia32_pause();
}

/* One line: how many times a waiter yielded so far. */
void kvm_yield_report(void)
{
    kprintf("kvm: sched yields: %lu to preempted vCPUs (PV sched yield)\n",
            __atomic_load_n(&yields, __ATOMIC_RELAXED));
}
