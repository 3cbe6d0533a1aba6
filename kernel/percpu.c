#include "kernel/percpu.h"

#include "pv/cpu.h"

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
