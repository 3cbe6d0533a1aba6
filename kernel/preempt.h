/* The running thread's preemption count, inline: what every spin_lock()
 * and spin_unlock() pays (kernel/spinlock.c), a load through %gs and an
 * increment, as Linux's preempt_count costs one. One of the scheduler's
 * own files, which may use struct thread's fields (kernel/thread.h). */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "kernel/percpu.h"
#include "kernel/thread.h"

/* The count reached 0 with a preemption missed meanwhile (kernel/sched.c). */
void sched_preempt_missed(void);

/* Before sched_init a CPU has no thread, and nothing to switch to. */
static inline void preempt_disable(void)
{
    struct thread *t = this_cpu_current();

    if (t)
        t->no_preempt++;
}

static inline void preempt_enable(void)
{
    struct thread *t = this_cpu_current();

    if (t && --t->no_preempt == 0 && t->preempt_missed)
        sched_preempt_missed();
}

#endif
