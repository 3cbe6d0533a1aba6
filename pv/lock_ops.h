/* Paravirt spinlock ops: how spin_lock() takes and releases a lock when
 * pv.spinlock=on (kernel/spinlock.c). The native backend leaves wait and
 * unlock NULL: its lock is the ticket lock (kernel/ticket_lock.h), which
 * spin_lock() then runs inline. A hypervisor backend may install entries
 * that, instead of spinning on a lock whose holder's vCPU is not running,
 * block the waiting vCPU until the holder kicks it. Taking a free lock
 * is inline on every backend: the ticket lock's, or with `queued` the
 * queued lock's one cmpxchg (kernel/qspinlock.h). */
#ifndef PV_LOCK_OPS_H
#define PV_LOCK_OPS_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock;

struct pv_lock_ops {
    const char *name; /* for the boot log, e.g. "native ticket" */
    bool queued;      /* locks are queued locks, not ticket locks */
    /* Returns holding l; called only when the inline path found l held.
     * A ticket lock's `mine` is the ticket taken; a queued lock's, the
     * lock word seen. NULL: spin on the ticket. */
    void (*wait)(struct spinlock *l, uint32_t mine);
    void (*unlock)(struct spinlock *l); /* called by the holder; NULL with wait */
    /* Once the options are read, before any lock is contended: may put
     * another of the backend's ops in place. NULL: none. */
    void (*setup)(void);
    uint64_t (*blocked)(void); /* times a waiter blocked; NULL if it never does */
    uint64_t (*kicked)(void);  /* times an unlocker woke one; NULL with blocked */
};

/* A counter of the ops in use (pv_lock_ops.blocked, .kicked), or 0 when
 * the backend keeps none. */
static inline uint64_t pv_lock_counter(uint64_t (*counter)(void))
{
    return counter ? counter() : 0;
}

/* The ops in use, assigned by the backend's install function
 * (arch/x86/native/lock.c, xen/lock.c, kvm/lock.c). */
extern struct pv_lock_ops pv_lock_ops;

#endif
