/* What the workloads (wl=on, disk=on, net=on) ask of the rest of the
 * kernel without naming it: whether to run on past their own count. A
 * lifecycle plan holds them open until its last resume, so each step
 * moves a domain that is busy; the workloads need not know why. */
#ifndef KERNEL_WORKLOAD_H
#define KERNEL_WORKLOAD_H

#include <stdbool.h>

/* True while the run should go on; registered before the workloads start. */
typedef bool (*workload_hold_fn)(void);

/* Adds a holder (at most a few: panics past the table). */
void workload_add_hold(workload_hold_fn hold);

/* Whether any holder still wants the workloads to run: they check it
 * once per pass, after their own count is done. */
bool workload_held(void);

#endif
