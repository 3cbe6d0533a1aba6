/* The split virtqueue (virtio 1.x spec, 2.7): a descriptor table, the
 * driver's available ring and the device's used ring, in guest memory the
 * device reads and writes. The layouts and vring_need_event() are Linux's
 * UAPI <linux/virtio_ring.h>; this is the driver's side of them, with no
 * device access of its own, so the host unit tests can play the device. */
#ifndef DRIVERS_VIRTQUEUE_H
#define DRIVERS_VIRTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_ring.h>

#define VQ_MAX_SIZE 128
#define VQ_MAX_CHAIN 19 /* descriptors one request may need */
#define VQ_RING_ALIGN 4096

/* One buffer of a request: the device reads it, or writes it. */
struct vq_buf {
    uint64_t addr; /* guest-physical */
    uint32_t len;
    bool device_writes;
};

struct virtqueue {
    uint16_t size; /* a power of two, at most VQ_MAX_SIZE */
    struct vring_desc *desc;
    struct vring_avail *avail;
    struct vring_used *used;
    struct vring_desc *indirect; /* size tables of VQ_MAX_CHAIN, or NULL */
    bool event_idx;              /* VIRTIO_RING_F_EVENT_IDX negotiated */
    uint16_t free_head, num_free;
    uint16_t avail_idx;  /* the next available entry: ours until published */
    uint16_t kicked_idx; /* avail->idx when the device was last considered */
    uint16_t last_used;  /* the next used entry to read */
    uint8_t chain_len[VQ_MAX_SIZE];
    void *token[VQ_MAX_SIZE];
};

/* Bytes of the ring memory vq_init() lays out for size entries. */
size_t vq_ring_bytes(uint16_t size);

/* Lays the rings out in ring (zeroed, VQ_RING_ALIGN-aligned, vq_ring_bytes
 * long) and every descriptor on the free list. indirect, if not NULL,
 * holds size * VQ_MAX_CHAIN descriptors: each request then takes one slot
 * of the ring however many buffers it has. */
void vq_init(struct virtqueue *vq, uint16_t size, void *ring, struct vring_desc *indirect,
             bool event_idx);

/* Chains bufs (those the device reads first) into the next available
 * entry, not yet visible to the device; returns its head descriptor, or
 * -1 if the table has too few free descriptors. */
int vq_add(struct virtqueue *vq, const struct vq_buf *bufs, unsigned n, void *token);

/* The head the next vq_add() takes: a driver keeps a request's small
 * buffers (a header, a status byte) in a slot of that number, free again
 * once vq_pop_used() hands the request back. */
static inline uint16_t vq_next_head(const struct virtqueue *vq)
{
    return vq->free_head;
}

/* Publishes what vq_add() queued; true if the device asked to be told
 * (its avail_event, or no VRING_USED_F_NO_NOTIFY without EVENT_IDX). */
bool vq_publish(struct virtqueue *vq);

/* The next completed request: 1 with its token, its head descriptor and
 * the bytes the device wrote, 0 when there is none, -1 if the device
 * named a descriptor that is not the head of a request in flight. */
int vq_pop_used(struct virtqueue *vq, void **token, uint16_t *head, uint32_t *len);

/* Asks the device for no interrupt while the driver is taking completions
 * anyway: the flag without EVENT_IDX; with it, an event index the driver
 * does not move until it re-arms already says so. */
void vq_quiet(struct virtqueue *vq);

/* Asks for an interrupt at the next completion; returns true if one came
 * already (the final check before sleeping: the caller pops again). */
bool vq_arm_interrupt(struct virtqueue *vq);

#endif
