/* The native pv_lock_ops: no entries. The native lock is the ticket lock
 * itself, which spin_lock() runs inline when the slots are empty, so a
 * native kernel with pv spinlocks runs the same instructions as one
 * without (kernel/spinlock.c). */
#include "arch/x86/native/backend.h"

const struct pv_lock_ops native_lock_ops = {
    .name = "native ticket",
};
