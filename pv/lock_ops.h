/* Paravirt spinlock ops: how spin_lock() takes and releases a lock when
 * pv.spinlock=on (kernel/spinlock.c). The native backend leaves wait and
 * unlock NULL: its lock is the ticket lock (kernel/ticket_lock.h), which
 * spin_lock() then runs inline. A hypervisor backend may install entries
 * that, instead of spinning on a lock whose holder's vCPU is not running,
 * block the waiting vCPU until the holder kicks it. Taking a free lock
 * is the ticket lock's inline path on every backend. */
#ifndef PV_LOCK_OPS_H
#define PV_LOCK_OPS_H

#include <stdint.h>

struct spinlock;

struct pv_lock_ops {
    const char *name; /* for the boot log, e.g. "native ticket" */
    /* Returns once ticket `mine` of l is served, i.e. holding l; called
     * only when taking the ticket found l held. NULL: spin. */
    void (*wait)(struct spinlock *l, uint32_t mine);
    void (*unlock)(struct spinlock *l); /* called by the holder; NULL with wait */
    uint64_t (*blocked)(void);          /* times a waiter blocked; NULL if it never does */
    uint64_t (*kicked)(void);           /* times an unlocker woke one; NULL with blocked */
};

/* A counter of the ops in use (pv_lock_ops.blocked, .kicked), or 0 when
 * the backend keeps none. */
static inline uint64_t pv_lock_counter(uint64_t (*counter)(void))
{
    return counter ? counter() : 0;
}

/* The ops in use, assigned by the backend's install function
 * (arch/x86/native/lock.c, xen/lock.c). */
extern struct pv_lock_ops pv_lock_ops;

#endif
