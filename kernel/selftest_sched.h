#ifndef KERNEL_SELFTEST_SCHED_H
#define KERNEL_SELFTEST_SCHED_H

/* Brings the scheduler up (sched_init) and checks it at boot, through the
 * generic interfaces only, so it runs the same on every platform:
 * preemption of threads that never yield, a channel moving a million
 * messages, and a sleep waking near its deadline. Panics on a failure;
 * returns in the boot thread with interrupts enabled and the slice timer
 * running. */
void selftest_sched(void);

#endif
