/* The native pv_lock_ops: the ticket lock, out of line. */
#include "arch/x86/native/backend.h"
#include "kernel/ticket_lock.h"

static void native_lock(struct spinlock *l)
{
    ticket_lock(l);
}

static void native_unlock(struct spinlock *l)
{
    ticket_unlock(l);
}

const struct pv_lock_ops native_lock_ops = {
    .name = "native ticket",
    .lock = native_lock,
    .unlock = native_unlock,
};
