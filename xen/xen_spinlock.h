#ifndef XEN_XEN_SPINLOCK_H
#define XEN_XEN_SPINLOCK_H

#include "pv/lock_ops.h"

/* Binds the kick port; call with events up, before xen_lock_ops is used. */
void xen_spinlock_init(void);

extern const struct pv_lock_ops xen_lock_ops;

#endif
