/* fault=: deliberate faults, so the tests can check that every fault, on
 * every door, ends with a dump and one verdict line. */
#ifndef KERNEL_FAULT_INJECT_H
#define KERNEL_FAULT_INJECT_H

/* Places inside other code where a fault can be asked for. */
enum fault_point {
    FAULT_IN_MUTATOR,       /* fault=wl-mutator: a write-barrier mutator thread */
    FAULT_IN_WRITE_HANDLER, /* fault=wl-handler: the workload's write-fault handler */
};

/* Commits a #PF here if fault= chose this point; returns otherwise. */
void fault_inject_point(enum fault_point point);

/* Commits the fault fault= chose, unless it belongs to a point never
 * reached, and then ends the run with a failure; returns only when none
 * was chosen. Call from thread context, after everything else. */
void fault_inject_run(void);

#endif
