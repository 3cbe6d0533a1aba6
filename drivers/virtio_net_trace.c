/* net.trace=N's lines from virtio-net (drivers/virtio_net_trace.h): bytes
 * as the device reads or wrote them, then decoded. */
#include "drivers/virtio_net_trace.h"

#include <linux/virtio_net.h>

#include "kernel/console.h"
#include "kernel/printf.h"

/* The 16-bit index virtio keeps after a ring's last entry. */
static uint16_t index_after(const void *end)
{
    return *(const volatile uint16_t *)end;
}

static void dump(const char *what, const void *p, size_t n)
{
    char line[3 * 16];

    ksnprint_bytes(line, sizeof(line), p, n);
    kprintf("virtio-net: trace: %s: %s\n", what, line);
}

static void desc(uint16_t i, const struct vring_desc *d)
{
    char what[24];

    ksnprintf(what, sizeof(what), "desc[%u]", i);
    dump(what, d, sizeof(*d));
    kprintf("virtio-net: trace:   = addr 0x%lx, len %u, flags 0x%x%s, next %u\n",
            (unsigned long)d->addr, d->len, d->flags,
            d->flags & VRING_DESC_F_WRITE ? " WRITE" : " (the device reads)", d->next);
}

void vnet_trace_rx(const struct virtqueue *vq, uint16_t at, uint16_t head, uint32_t len,
                   const void *hdr)
{
    const struct vring_used_elem *e = &vq->used->ring[at & (vq->size - 1)];

    kprintf("virtio-net: trace: rx interrupt: used->idx %u, the driver's next used entry %u\n",
            vq->used->idx, at);
    dump("rx used->ring entry", e, sizeof(*e));
    kprintf("virtio-net: trace:   = id %u, len %u (the %zu-byte header and a %zu-byte frame)\n",
            head, len, sizeof(struct virtio_net_hdr_v1), len - sizeof(struct virtio_net_hdr_v1));
    desc(head, &vq->desc[head]);
    dump("virtio_net_hdr_v1", hdr, sizeof(struct virtio_net_hdr_v1));
}

/* virtio 1.x, 2.7.10: with EVENT_IDX the device is told only if avail_event
 * lies among the entries just published. */
static void decision(const char *queue, const struct virtqueue *vq, uint16_t old_idx, bool notify)
{
    if (vq->event_idx)
        kprintf("virtio-net: trace: %s avail->idx %u -> %u, avail_event %u: %s\n", queue, old_idx,
                vq->avail->idx, index_after(&vq->used->ring[vq->size]),
                notify ? "notify" : "no notify");
    else
        kprintf("virtio-net: trace: %s avail->idx %u -> %u, used->flags 0x%x: %s\n", queue, old_idx,
                vq->avail->idx, vq->used->flags, notify ? "notify" : "no notify");
}

void vnet_trace_refill(const struct virtqueue *vq, uint16_t at, uint16_t old_idx, bool notify)
{
    kprintf("virtio-net: trace: rx refill: avail->ring[%u] = %u (avail index %u)\n",
            at & (vq->size - 1), vq->avail->ring[at & (vq->size - 1)], at);
    decision("rx", vq, old_idx, notify);
}

void vnet_trace_rearm(const struct virtqueue *vq)
{
    if (vq->event_idx)
        kprintf("virtio-net: trace: rx re-armed: used_event %u\n",
                index_after(&vq->avail->ring[vq->size]));
    else
        kprintf("virtio-net: trace: rx re-armed: avail->flags 0x%x\n", vq->avail->flags);
}

void vnet_trace_tx(const struct virtqueue *vq, uint16_t head, const void *hdr)
{
    uint16_t at = (uint16_t)(vq->avail_idx - 1);

    dump("tx virtio_net_hdr_v1", hdr, sizeof(struct virtio_net_hdr_v1));
    desc(head, &vq->desc[head]);
    kprintf("virtio-net: trace: tx avail->ring[%u] = %u (avail index %u, ring of %u)\n",
            at & (vq->size - 1), vq->avail->ring[at & (vq->size - 1)], at, vq->size);
}

void vnet_trace_kick(const struct virtqueue *vq, uint16_t old_idx, bool notify,
                     const volatile uint16_t *notify_addr, uint16_t queue)
{
    decision("tx", vq, old_idx, notify);
    if (notify)
        kprintf("virtio-net: trace: notify: 16-bit write of queue %u to %p\n", queue,
                (const void *)notify_addr);
}

void vnet_trace_tx_done(const struct virtqueue *vq, uint16_t at, uint16_t head, uint32_t len)
{
    kprintf("virtio-net: trace: tx reclaimed: used->ring[%u] = id %u, len %u (used index %u)\n",
            at & (vq->size - 1), head, len, at);
}
