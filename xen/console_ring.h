/* The producer side of a Xen console ring (struct xencons_interface from
 * <xen/io/console.h>): what a guest that is not dom0 writes its console
 * output into. Pure code over the shared page, so a host test can drive it. */
#ifndef XEN_CONSOLE_RING_H
#define XEN_CONSOLE_RING_H

#include <stddef.h>
#include <stdint.h>

#include <xen/io/console.h>

/* Copies as much of s[0..len) as fits into the out ring and publishes it;
 * returns the bytes copied (0 when the ring is full). The caller then
 * notifies the console's event channel. */
size_t xencons_ring_write(struct xencons_interface *ring, const char *s, size_t len);

/* Bytes the out ring can take now. */
size_t xencons_ring_space(const struct xencons_interface *ring);

#endif
