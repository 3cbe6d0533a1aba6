/* Paravirt spinlock ops: how spin_lock() takes and releases a lock when
 * pv.spinlock=on (kernel/spinlock.c). The native entries are the ticket
 * lock (kernel/ticket_lock.h). A hypervisor backend may install entries
 * that, instead of spinning on a lock whose holder's vCPU is not running,
 * block the waiting vCPU until the holder kicks it. */
#ifndef PV_LOCK_OPS_H
#define PV_LOCK_OPS_H

struct spinlock;

struct pv_lock_ops {
    const char *name;                   /* for the boot log, e.g. "native ticket" */
    void (*lock)(struct spinlock *l);   /* returns holding l */
    void (*unlock)(struct spinlock *l); /* called by the holder */
};

/* The ops in use; the native ones until a backend replaces them.
 *
 * Xen has no backend yet. It would spin a while, then block the vCPU with
 * SCHEDOP_poll on a per-CPU event channel, and the unlocker would kick a
 * waiter with EVTCHNOP_send; that needs xen/events.h to allocate, notify
 * and poll on a port, which it cannot do yet. With one vCPU no lock is
 * ever contended, so it would not change a run today. */
extern struct pv_lock_ops pv_lock_ops;

#endif
