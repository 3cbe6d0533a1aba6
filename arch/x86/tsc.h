/* The TSC as the native clock. */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include <stdint.h>

/* Starts the clock at 0 now, counting tsc_hz ticks per second. */
void tsc_clock_init(uint64_t tsc_hz);

/* Nanoseconds since tsc_clock_init(): a multiply and a shift of the TSC. */
uint64_t tsc_now_ns(void);

#endif
