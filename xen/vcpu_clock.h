/* One vCPU's clock: its time record and its TSC, read as a pair. Inline,
 * with every read a hook: the kernel's hooks are constant and compile to
 * straight-line code, and a host test's hooks can move the reading
 * thread between two vCPUs wherever interrupts would let it. */
#ifndef XEN_VCPU_CLOCK_H
#define XEN_VCPU_CLOCK_H

#include <stdint.h>

#include "kernel/compiler.h"
#include "xen/system_time.h"

struct vcpu_clock_hooks {
    unsigned long (*irq_save)(void);
    void (*irq_restore)(unsigned long flags);
    unsigned (*cpu)(void);
    const volatile struct vcpu_time_info *(*record)(unsigned cpu);
    uint64_t (*tsc)(void); /* ordered after the reads before it */
};

/* Xen ABI: Xen bumps version before and after it updates the record, so
 * an odd or changed version means we read a torn snapshot: read again. */
static inline __attribute__((always_inline)) uint64_t
xen_vcpu_record_ns(const volatile struct vcpu_time_info *src, uint64_t (*tsc_read)(void),
                   uint8_t *flags)
{
    struct vcpu_time_info snap;
    uint32_t version;
    uint64_t tsc;

    do {
        version = src->version;
        compiler_barrier();
        snap.tsc_timestamp = src->tsc_timestamp;
        snap.system_time = src->system_time;
        snap.tsc_to_system_mul = src->tsc_to_system_mul;
        snap.tsc_shift = src->tsc_shift;
        *flags = src->flags;
        tsc = tsc_read();
        compiler_barrier();
    } while ((version & 1) || version != src->version);
    return xen_system_time_ns(&snap, tsc);
}

/* The record and the TSC must be the same vCPU's, and only preemption
 * moves a thread: with interrupts off it stays put from the record to the
 * TSC (a check of the vCPU before and after misses a thread moved away
 * and back in between), as Linux's pvclock reads it. */
static inline __attribute__((always_inline)) uint64_t
xen_vcpu_clock_ns(const struct vcpu_clock_hooks *h, uint8_t *flags)
{
    unsigned long irqs = h->irq_save();
    uint64_t ns = xen_vcpu_record_ns(h->record(h->cpu()), h->tsc, flags);

    h->irq_restore(irqs);
    return ns;
}

#endif
