/* The default pv_lock_ops: the native ticket lock, out of line. */
#include "pv/lock_ops.h"

#include "kernel/ticket_lock.h"

static void native_lock(struct spinlock *l)
{
    ticket_lock(l);
}

static void native_unlock(struct spinlock *l)
{
    ticket_unlock(l);
}

struct pv_lock_ops pv_lock_ops = {
    .name = "native ticket",
    .lock = native_lock,
    .unlock = native_unlock,
};
