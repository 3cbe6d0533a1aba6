/* A kernel thread: what the scheduler knows about it. The scheduler's own
 * files (kernel/sched.c, kernel/thread.c, kernel/wait_queue.c,
 * kernel/preempt.h) use the
 * fields; everyone else holds a struct thread * and calls kernel/sched.h. */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <stdbool.h>
#include <stdint.h>

struct context; /* the registers a switched-out thread left on its stack (arch) */

enum thread_state {
    THREAD_FREE,     /* an unused slot */
    THREAD_RUNNING,  /* on a CPU: one thread per CPU at a time */
    THREAD_RUNNABLE, /* on the run queue */
    THREAD_SLEEPING, /* on the sleep list until wake_ns */
    THREAD_BLOCKED,  /* on a wait queue, or waiting in thread_join() */
    THREAD_DEAD,     /* exited and switched away for good; thread_join() frees it */
};

struct thread {
    struct context *context; /* valid while the thread is not RUNNING */
    struct thread *next;     /* links on whichever one list the state says */
    struct thread *prev;
    enum thread_state state;
    const char *name;
    uint64_t wake_ns;       /* SLEEPING: when to make it runnable */
    struct thread *joiner;  /* the one thread waiting for this one to exit */
    int slot;               /* index into the stack pool; -1 for the boot thread */
    int cpu;                /* the one CPU it may run on, or -1 for any */
    uint64_t *stack_bottom; /* its stack's lowest word, the canary (kernel/thread.c) */
    unsigned no_preempt;    /* > 0: the tick leaves it running (sched_preempt_disable) */
    bool preempt_missed;    /* a tick found its slice over while no_preempt */
};

#endif
