/* Native time: the TSC clock and the local APIC one-shot, calibrated
 * against the PIT (arch/x86/native_time.c). */
#ifndef ARCH_X86_NATIVE_TIME_H
#define ARCH_X86_NATIVE_TIME_H

#include <stdint.h>

/* Masks the 8259s, enables the local APIC, calibrates the TSC and the APIC
 * timer, hooks the timer vector and prints the rates. */
void native_time_init(void);

/* pv_time_ops.timer_oneshot: the APIC timer, for deadline - now. */
void native_timer_oneshot(uint64_t deadline_ns);

#endif
