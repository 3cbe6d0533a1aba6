/* The 8254 PIT's channel 2, as a stopwatch of known rate for calibration. */
#ifndef ARCH_X86_PIT_H
#define ARCH_X86_PIT_H

#include <stdbool.h>
#include <stdint.h>

#define PIT_HZ 1193182 /* the PC's PIT input clock: 14.31818 MHz / 12 */

/* Starts channel 2 counting down ticks, with the speaker silent. */
void pit_ch2_start(uint16_t ticks);

/* True once the count started by pit_ch2_start() has run out. */
bool pit_ch2_expired(void);

#endif
