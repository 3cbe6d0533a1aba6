#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

/* Commits the fault chosen with fault= (a test of the trap path); returns
 * only when none was chosen. */
void fault_inject_run(void);

#endif
