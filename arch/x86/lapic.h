/* The local APIC in xAPIC mode: its registers are a 4 KiB MMIO page. */
#ifndef ARCH_X86_LAPIC_H
#define ARCH_X86_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#define LAPIC_TIMER_VECTOR 0xf0 /* the highest priority class */
#define LAPIC_IPI_VECTOR 0xf1   /* a wake-up: its handler only sends EOI */
#define LAPIC_TLB_VECTOR 0xf2   /* a TLB shootdown (arch/x86/native/tlb.c) */
#define LAPIC_SPURIOUS_VECTOR 0xff

/* ICR command words (Intel SDM vol. 3, 11.6.1): delivery mode, level. */
#define LAPIC_ICR_FIXED 0x0000u
#define LAPIC_ICR_INIT 0x0500u
#define LAPIC_ICR_STARTUP 0x0600u
#define LAPIC_ICR_ASSERT 0x4000u

/* Where the registers are, from IA32_APIC_BASE; the kernel map maps them. */
uint64_t lapic_phys_base(void);

/* Enables the calling CPU's APIC with its timer masked and dividing by 1;
 * each CPU calls it for its own. */
void lapic_init(void);

/* The calling CPU's APIC id (bits 31:24 of the ID register). */
uint8_t lapic_id(void);

/* Sends one IPI, command (LAPIC_ICR_*, with the vector for fixed and
 * startup IPIs) to APIC id dest; false if the ICR stayed busy. */
bool lapic_send_ipi(uint8_t dest, uint32_t command);

/* Ends the interrupt being serviced, so lower or equal ones can come:
 * lapic_eoi_write, the EOI register's write (an exit under a hypervisor),
 * unless a backend's install puts its own way in (KVM's PV EOI). */
extern void (*lapic_eoi)(void);
void lapic_eoi_write(void);

/* The timer counting down from 2^32 - 1 with its interrupt masked, for
 * calibration; lapic_timer_count() reads it, lapic_timer_stop() stops it. */
void lapic_timer_free_run(void);
uint32_t lapic_timer_count(void);
void lapic_timer_stop(void);

/* The timer's rate in Hz against a clock a hypervisor keeps (Xen's
 * system time, kvm-clock): its count over 10 ms of now_ns(), the slowest
 * of three undisturbed passes (of every pass if 12 find none), as
 * natively against the PIT. Under time.miscalibrate
 * the stretch is taken as that many times longer: a timer too slow by
 * the factor, which fires early by the clock. */
uint64_t lapic_timer_measure_hz(uint64_t (*now_ns)(void));

/* The timer's interrupts become the kernel's ticks (timer_interrupt()). */
void lapic_timer_hook(void);

/* The timer's count rate, once calibrated. */
void lapic_timer_set_hz(uint64_t hz);

/* One interrupt on LAPIC_TIMER_VECTOR after delay_ns, rounded up to a
 * whole tick and clamped to what the 32-bit count holds. */
void lapic_timer_oneshot_ns(uint64_t delay_ns);

#endif
