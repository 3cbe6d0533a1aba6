/* Living through saves, restores and moves by the toolstack
 * (kernel/lifecycle.c): lifecycle=N. */
#ifndef KERNEL_LIFECYCLE_H
#define KERNEL_LIFECYCLE_H

#include <stdbool.h>

/* lifecycle.mutant=: test controls that must end in one verdict. */
enum lifecycle_mutant {
    LIFECYCLE_SOUND,       /* none */
    LIFECYCLE_DEAF,        /* suspend requests are ignored */
    LIFECYCLE_NO_REBIND,   /* no event channel is bound again after a resume */
    LIFECYCLE_STALE_FRAME, /* a machine frame of the old domain is kept */
};
int lifecycle_mutant(void);

/* A device's part in a suspend: suspend runs at the safe point (vCPU 0,
 * the others parked, interrupts off: it must not sleep), resume in thread
 * context once the platform has resumed, new_domain false when the
 * suspend was cancelled. Registered hooks resume in the order registered,
 * and suspend in the reverse. */
struct lifecycle_hook {
    const char *name;
    void (*suspend)(void);
    void (*resume)(bool new_domain);
    struct lifecycle_hook *next;
};
void lifecycle_register(struct lifecycle_hook *h);

/* With lifecycle=N: watches for the toolstack's requests, starts the
 * counting threads, one per CPU, and holds the workloads open until the
 * last resume (kernel/workload.h); call once every CPU runs. */
void lifecycle_start(void);

/* Waits for the last resume, ends the threads and prints the domains;
 * ends the run if the resumes did not all come. */
void lifecycle_finish(void);

#endif
