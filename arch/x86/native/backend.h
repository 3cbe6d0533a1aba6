/* The native backend's table of contents: every function its files share.
 * The ops themselves, native_<op>, are declared from the registry. */
#ifndef ARCH_X86_NATIVE_BACKEND_H
#define ARCH_X86_NATIVE_BACKEND_H

#include "kernel/boot_info.h"
#include "pv/lock_ops.h"
#include "pv/ops.h"

PV_DECLARE_BACKEND(native)

/* The entry paths, in C, in long mode with what the loader handed over:
 * pvh.c's from arch/x86/pvh.c once it found no Xen beneath us, and
 * multiboot2.c's from boot/multiboot2.asm. */
__attribute__((noreturn)) void native_pvh_start(uint32_t start_info_pa);
/* pvh.c: boot_info from QEMU's start info and ACPI, then kernel_main, for
 * a backend installed already (native, or KVM's). */
__attribute__((noreturn)) void native_pvh_boot(uint32_t start_info_pa, enum boot_method method);
__attribute__((noreturn)) void multiboot2_start(uint32_t info_pa, uint32_t magic);

/* install.c: the serial console, CPU tables and every ops table: what
 * each native entry path does before it looks at the loader's information. */
void native_install(void);

/* time.c: masks the 8259s, enables the local APIC, calibrates the TSC and
 * the APIC timer against the PIT and hooks the timer vector; once the
 * options are read, miscalibrates them if time.miscalibrate asks. */
void native_time_init(void);
void native_time_setup(void);
/* Rates measured another way, before anything reads the clock. */
void native_time_set_rates(uint64_t tsc_hz, uint64_t apic_hz, const char *how);

/* smp.c: a fixed IPI carrying vector to cpu; and, for a CPU not started
 * by native_start_cpu, which APIC is its. */
void native_send_ipi_vector(unsigned cpu, uint8_t vector);
uint8_t native_cpu_apic_id(unsigned cpu);
/* How the wake-up IPIs and shootdowns leave: a fixed IPI carrying vector
 * to each CPU in cpus (a bit each); native_ipi_each, one ICR write each,
 * unless a backend's install puts its own way in (KVM's PV send-IPI). */
extern void (*native_ipi_many)(unsigned cpus, uint8_t vector);
void native_ipi_each(unsigned cpus, uint8_t vector);
void native_cpu_apic_id_set(unsigned cpu, uint8_t apic_id);

/* tlb.c: hooks the TLB shootdown vector. native_wait_for_cpus is one
 * step of a shootdown's wait for the CPUs in cpus to flush: a pause,
 * unless a backend's install puts its own way in (KVM's PV sched yield). */
void native_shootdown_init(void);
extern void (*native_wait_for_cpus)(unsigned cpus);

/* lock.c: the ticket lock, out of line. */
extern const struct pv_lock_ops native_lock_ops;

#endif
