/* The KVM backend's table of contents: the hardware's ops (the native
 * backend's), with KVM's paravirtual features where it offers them, each
 * switchable against the emulated hardware's way. */
#ifndef KVM_BACKEND_H
#define KVM_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "kvm/cpuid.h"
#include "pv/lock_ops.h"

/* start.c: from arch/x86/pvh.c once CPUID showed KVM's leaves at base. */
__attribute__((noreturn)) void kvm_pvh_start(uint32_t start_info_pa, uint32_t base);

/* install.c: every ops table, given KVM's CPUID leaves at base. */
void kvm_install(uint32_t base);

/* clock.c: kvm-clock. init takes the TSC's and the APIC timer's rates
 * from it if features offer it (false if not); switch makes it the
 * kernel's clock (kvm_clock_now_ns), continuing the TSC's. */
bool kvm_clock_init(uint32_t features);
void kvm_clock_switch(void);
bool kvm_clock_stable(void);
uint64_t kvm_clock_now_ns(void);
void kvm_lapic_timer_oneshot(uint64_t deadline_ns);

/* ipi.c: PV send-IPI (native_ipi_many's KVM way), and how many
 * hypercalls it made. */
void kvm_ipi_many(unsigned cpus, uint8_t vector);
uint64_t kvm_ipi_hypercalls(void);

/* steal.c: steal time. init registers this CPU's record, cpu_start
 * each later CPU's as it starts; preempted says whether KVM holds that
 * vCPU runnable but not running; flag_flush asks KVM to flush a preempted
 * vCPU's TLB before it runs again (false if it is not preempted); report
 * prints each CPU's steal so far. */
void kvm_steal_init(void);
void kvm_steal_cpu_start(unsigned cpu);
uint64_t kvm_steal_ns(unsigned cpu);
bool kvm_steal_preempted(unsigned cpu);
bool kvm_steal_flag_flush(unsigned cpu);
void kvm_steal_report(unsigned cpus);

/* eoi.c: PV EOI (lapic_eoi's KVM way). init registers this CPU's word,
 * cpu_start each later CPU's; kvm_eoi_write is kvm.eoi=off's EOI, the
 * register's write, counted the same; report prints the counts. */
void kvm_eoi_init(void);
void kvm_eoi_cpu_start(unsigned cpu);
void kvm_eoi(void);
void kvm_eoi_write(void);
void kvm_eoi_report(unsigned cpus);

/* tlb.c: PV TLB flush (flush_tlb_others' KVM way): preempted targets
 * flagged if use_flags (kvm_tlb_flags says), IPIs to the rest; the
 * self-test shoots down a spinning CPU 1; report prints how many each way. */
void kvm_tlb_init(bool use_flags);
bool kvm_tlb_flags(void);
void kvm_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end);
void kvm_tlb_selftest(void);
void kvm_tlb_report(void);

/* yield.c: PV sched yield (native_wait_for_cpus' KVM way): one step
 * of a wait for the CPUs in cpus, a yield to one KVM preempted; report
 * prints how many yields so far. */
void kvm_yield_wait(unsigned cpus);
void kvm_yield_report(void);

/* lock.c: PV spinlocks, a ticket lock whose waiters halt and are kicked
 * (KVM_HC_KICK_CPU); kvm.lock=off puts the native ticket lock back. */
extern const struct pv_lock_ops kvm_lock_ops;

#endif
