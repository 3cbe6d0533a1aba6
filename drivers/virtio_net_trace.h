/* net.trace=N natively: a traced echo's trip through virtio-net's two
 * split virtqueues, in the rings' own bytes, for docs/io.md
 * (tools/gen-docs quotes the lines). */
#ifndef DRIVERS_VIRTIO_NET_TRACE_H
#define DRIVERS_VIRTIO_NET_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/virtqueue.h"

/* The receive queue's used entry for the frame (at used index at), the
 * descriptor it names and the virtio-net header the device wrote. */
void vnet_trace_rx(const struct virtqueue *vq, uint16_t at, uint16_t head, uint32_t len,
                   const void *hdr);

/* The same buffer posted again at available index at, and the publish's
 * notification decision. */
void vnet_trace_refill(const struct virtqueue *vq, uint16_t at, uint16_t old_idx, bool notify);

/* The used_event the re-arming left for the next interrupt. */
void vnet_trace_rearm(const struct virtqueue *vq);

/* The reply's descriptor and available entry on the transmit queue. */
void vnet_trace_tx(const struct virtqueue *vq, uint16_t head, const void *hdr);

/* The transmit kick's decision, and the notify write it led to. */
void vnet_trace_kick(const struct virtqueue *vq, uint16_t old_idx, bool notify,
                     const volatile uint16_t *notify_addr, uint16_t queue);

/* The reply's used entry, found when a later transmit reclaims it. */
void vnet_trace_tx_done(const struct virtqueue *vq, uint16_t at, uint16_t head, uint32_t len);

#endif
