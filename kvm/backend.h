/* The KVM backend's table of contents: the hardware's ops (the native
 * backend's), with KVM's paravirtual features where it offers them, each
 * switchable against the emulated hardware's way. */
#ifndef KVM_BACKEND_H
#define KVM_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "kvm/cpuid.h"

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
 * hypercalls it made; the hypercall instruction is vmmcall if set. */
extern bool kvm_vmmcall;
void kvm_ipi_many(unsigned cpus, uint8_t vector);
uint64_t kvm_ipi_hypercalls(void);

/* steal.c: steal time. init registers this CPU's record and each later
 * CPU's as it sets its per-CPU base (kvm_steal_set_percpu_base, the cpu
 * op KVM's backend installs); report prints each CPU's steal so far. */
void kvm_steal_init(void);
void kvm_steal_set_percpu_base(uint64_t base);
uint64_t kvm_steal_ns(unsigned cpu);
void kvm_steal_report(unsigned cpus);

#endif
