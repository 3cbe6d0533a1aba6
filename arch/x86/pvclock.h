/* The pvclock ABI, Xen's vcpu_time_info record, which KVM's kvm-clock
 * shares byte for byte: the scaling, and one vCPU's clock read as a pair
 * of its record and its TSC. The reader is inline, with every read a
 * hook: the kernel's hooks are constant and compile to straight-line
 * code, and a host test's hooks can move the reading thread between two
 * vCPUs wherever interrupts would let it. */
#ifndef ARCH_X86_PVCLOCK_H
#define ARCH_X86_PVCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/compiler.h"
#include "xen/xen_public.h"

/* pvclock ABI: ns = ((delta << shift) * mul) >> 32, where a negative
 * shift means a right shift and the product is kept to 96 bits. */
uint64_t pvclock_scale_delta(uint64_t delta, uint32_t tsc_to_system_mul, int8_t tsc_shift);

/* Nanoseconds at TSC value tsc; a TSC read before the snapshot was taken
 * counts as no time passed, so the clock never steps back. The TSC and
 * tsc_timestamp are compared as a wrapping difference: a timestamp "below
 * zero" (a huge unsigned value) is before any small TSC. */
uint64_t pvclock_ns(const struct vcpu_time_info *t, uint64_t tsc);

/* The TSC's rate a record's scale states, in Hz; 0 for a record with no
 * scale yet. */
uint64_t pvclock_tsc_hz(const volatile struct vcpu_time_info *t);

/* The latest time any vCPU's clock returned, once several vCPUs read
 * their own records (set several then). */
struct pvclock_latest {
    bool several;
    uint64_t latest;
};

/* ns, or the latest time returned if that is later, unless flags (the
 * record's) say every vCPU's clock is the same one. */
uint64_t pvclock_never_back(struct pvclock_latest *l, uint64_t ns, uint8_t flags);

struct pvclock_hooks {
    unsigned long (*irq_save)(void);
    void (*irq_restore)(unsigned long flags);
    unsigned (*cpu)(void);
    const volatile struct vcpu_time_info *(*record)(unsigned cpu);
    uint64_t (*tsc)(void); /* ordered after the reads before it */
};

/* pvclock ABI: the hypervisor bumps version before and after it updates
 * the record, so an odd or changed version means a torn snapshot: read
 * again. */
static inline __attribute__((always_inline)) uint64_t
pvclock_read_ns(const volatile struct vcpu_time_info *src, uint64_t (*tsc_read)(void),
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
    return pvclock_ns(&snap, tsc);
}

/* The record and the TSC must be the same vCPU's, and only preemption
 * moves a thread: with interrupts off it stays put from the record to the
 * TSC (a check of the vCPU before and after misses a thread moved away
 * and back in between), as Linux's pvclock reads it. */
static inline __attribute__((always_inline)) uint64_t pvclock_cpu_ns(const struct pvclock_hooks *h,
                                                                     uint8_t *flags)
{
    unsigned long irqs = h->irq_save();
    uint64_t ns = pvclock_read_ns(h->record(h->cpu()), h->tsc, flags);

    h->irq_restore(irqs);
    return ns;
}

#endif
