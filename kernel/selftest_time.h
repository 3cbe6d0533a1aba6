#ifndef KERNEL_SELFTEST_TIME_H
#define KERNEL_SELFTEST_TIME_H

/* The boot self-test of the clock, the one-shot timer and interrupt
 * delivery, through the generic interfaces only, so it checks whichever
 * backend is installed. Panics on a failure; returns with interrupts
 * disabled. */
void selftest_time(void);

#endif
