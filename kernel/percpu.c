#include "kernel/percpu.h"

#include "kernel/exit.h"
#include "kernel/thread.h"
#include "pv/cpu.h"
#include "pv/irq.h"

/* Page-aligned, and each area a multiple of 64 bytes, so no area's
 * platform block crosses a page: Xen refuses a vcpu_info that does. */
struct percpu percpu_areas[MAX_CPUS] __attribute__((aligned(4096)));
_Static_assert(sizeof(struct percpu) % 64 == 0, "per-CPU areas must stay 64-byte aligned");

void percpu_init(unsigned cpu)
{
    struct percpu *p = &percpu_areas[cpu];

    p->self = p;
    p->cpu = cpu;
    pv_cpu_ops.set_percpu_base((uint64_t)p);
}

#if defined(CONFIG_DEBUG) && CONFIG_DEBUG
/* Before the scheduler runs there is one thread and nowhere to move it;
 * after, a thread moves only when a tick may preempt it, unpinned. */
void percpu_check_pinned(const char *fn)
{
    struct thread *t = this_cpu_current();

    if (!t || !(irq_save_flags() & X86_EFLAGS_IF) || t->no_preempt || t->cpu >= 0)
        return;
    panic("percpu: %s used this CPU's slot in thread %s, which may move to another CPU", fn,
          t->name);
}
#endif
