/* fault=: deliberate faults, so the tests can check that every fault, on
 * every door, ends with a dump and one verdict line. */
#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

/* Hands the workload its hook when fault= chose a fault inside it
 * (wl-mutator, wl-handler): the workload calls it at its points and the
 * first to reach the chosen one commits a #PF. Call before the workloads. */
void fault_inject_arm(void);

/* Commits the fault fault= chose, unless it belongs to a point never
 * reached, and then ends the run with a failure; returns only when none
 * was chosen. Call from thread context, after everything else. */
void fault_inject_run(void);

#endif
