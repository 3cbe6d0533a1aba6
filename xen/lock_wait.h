/* What Xen's two pv locks share (xen/lock.c): each vCPU's kick port,
 * blocking on it, kicking another vCPU's, and the counts of both. */
#ifndef XEN_LOCK_WAIT_H
#define XEN_LOCK_WAIT_H

#include <stdint.h>

#include "pv/lock_ops.h"

/* Forgets a late kick from an earlier wait: call before saying this vCPU
 * is about to block, with events masked. */
void xen_lock_clear_kick(void);

/* Blocks this vCPU until kicked or a short bound passes, unless an event
 * the caller would take with events as flags says is already waiting.
 * Call with events masked (irq_save's flags given). */
void xen_lock_block(unsigned long flags);

/* Wakes cpu's vCPU from xen_lock_block(), or makes its next one return. */
void xen_lock_kick(unsigned cpu);

/* The queued lock's pv_lock_ops entries (xen/qspinlock.c). */
void xen_qspinlock_wait(struct spinlock *l, uint32_t seen);
void xen_qspinlock_unlock(struct spinlock *l);

#endif
