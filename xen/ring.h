/* What Xen's shared-ring macros (<xen/io/ring.h>) ask their includer for:
 * the barriers they use. On x86 only a store followed by a load needs a
 * fence. Every split driver's ring header includes this first. */
#ifndef XEN_RING_H
#define XEN_RING_H

#include "xen/xen_public.h"

#define xen_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define xen_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define xen_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

#include <xen/io/ring.h>

#endif
