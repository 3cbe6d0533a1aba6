/* The local APIC in xAPIC mode: its registers are a 4 KiB MMIO page. */
#ifndef ARCH_X86_LAPIC_H
#define ARCH_X86_LAPIC_H

#include <stdint.h>

#define LAPIC_TIMER_VECTOR 0xf0 /* the highest priority class */
#define LAPIC_SPURIOUS_VECTOR 0xff

/* Where the registers are, from IA32_APIC_BASE; the kernel map maps them. */
uint64_t lapic_phys_base(void);

/* Enables the APIC with its timer masked and dividing by 1. */
void lapic_init(void);

/* Ends the interrupt being serviced, so lower or equal ones can come. */
void lapic_eoi(void);

/* The timer counting down from 2^32 - 1 with its interrupt masked, for
 * calibration; lapic_timer_count() reads it, lapic_timer_stop() stops it. */
void lapic_timer_free_run(void);
uint32_t lapic_timer_count(void);
void lapic_timer_stop(void);

/* The timer's count rate, once calibrated. */
void lapic_timer_set_hz(uint64_t hz);

/* One interrupt on LAPIC_TIMER_VECTOR after delay_ns, rounded up to a
 * whole tick and clamped to what the 32-bit count holds. */
void lapic_timer_oneshot_ns(uint64_t delay_ns);

#endif
