/* virtio.trace=1: the first read's trip through the split virtqueue, in
 * the rings' own bytes, for docs/io.md (tools/gen-docs quotes the lines). */
#ifndef DRIVERS_VIRTIO_BLK_TRACE_H
#define DRIVERS_VIRTIO_BLK_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/virtqueue.h"

/* The request's descriptors (the head, and its indirect table if it has
 * one), the header they point to, and its available entry. */
void vblk_trace_request(const struct virtqueue *vq, uint16_t head, const void *hdr,
                        uint16_t hdr_len);

/* vq_publish's decision: the index it wrote, the device's avail_event it
 * read, and the notify write it led to, if any. */
void vblk_trace_kick(const struct virtqueue *vq, uint16_t old_idx, bool notify,
                     const volatile uint16_t *notify_addr);

/* The used element that completed it, and the status byte. */
void vblk_trace_used(const struct virtqueue *vq, uint16_t at, uint16_t head, uint32_t len,
                     uint8_t status);

/* The index the re-arming left for the next interrupt. */
void vblk_trace_rearm(const struct virtqueue *vq);

#endif
