/* virtio.trace=1's lines (drivers/virtio_blk_trace.h): bytes as the device
 * reads them, then decoded. */
#include "drivers/virtio_blk_trace.h"

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
    kprintf("virtio-blk: trace: %s: %s\n", what, line);
}

static void desc(const char *what, const struct vring_desc *d)
{
    dump(what, d, sizeof(*d));
    kprintf("virtio-blk: trace:   = addr 0x%lx, len %u, flags 0x%x%s%s%s, next %u\n",
            (unsigned long)d->addr, d->len, d->flags, d->flags & VRING_DESC_F_NEXT ? " NEXT" : "",
            d->flags & VRING_DESC_F_WRITE ? " WRITE" : "",
            d->flags & VRING_DESC_F_INDIRECT ? " INDIRECT" : "", d->next);
}

void vblk_trace_request(const struct virtqueue *vq, uint16_t head, const void *hdr,
                        uint16_t hdr_len)
{
    const struct vring_desc *d = &vq->desc[head];
    uint16_t at = (uint16_t)(vq->avail_idx - 1);
    char what[48];

    dump("virtio_blk_outhdr", hdr, hdr_len);
    ksnprintf(what, sizeof(what), "desc[%u]", head);
    desc(what, d);
    for (uint16_t i = head; vq->desc[i].flags & VRING_DESC_F_NEXT;) {
        i = vq->desc[i].next;
        ksnprintf(what, sizeof(what), "desc[%u]", i);
        desc(what, &vq->desc[i]);
    }
    if (d->flags & VRING_DESC_F_INDIRECT)
        for (unsigned i = 0; i < d->len / sizeof(*d); i++) {
            ksnprintf(what, sizeof(what), "its indirect table[%u]", i);
            desc(what, (const struct vring_desc *)(uintptr_t)d->addr + i);
        }
    kprintf("virtio-blk: trace: avail->ring[%u] = %u (avail index %u, ring of %u)\n",
            at & (vq->size - 1), vq->avail->ring[at & (vq->size - 1)], at, vq->size);
}

/* virtio 1.x, 2.7.10: with EVENT_IDX the device is told only if avail_event
 * lies among the entries just published. */
void vblk_trace_kick(const struct virtqueue *vq, uint16_t old_idx, bool notify,
                     const volatile uint16_t *notify_addr)
{
    if (vq->event_idx)
        kprintf("virtio-blk: trace: avail->idx %u -> %u, avail_event %u: %s\n", old_idx,
                vq->avail->idx, index_after(&vq->used->ring[vq->size]),
                notify ? "notify" : "no notify");
    else
        kprintf("virtio-blk: trace: avail->idx %u -> %u, used->flags 0x%x: %s\n", old_idx,
                vq->avail->idx, vq->used->flags, notify ? "notify" : "no notify");
    if (notify)
        kprintf("virtio-blk: trace: notify: 16-bit write of queue 0 to %p\n",
                (const void *)notify_addr);
}

void vblk_trace_used(const struct virtqueue *vq, uint16_t at, uint16_t head, uint32_t len,
                     uint8_t status)
{
    const struct vring_used_elem *e = &vq->used->ring[at & (vq->size - 1)];

    kprintf("virtio-blk: trace: interrupt: used->idx %u\n", vq->used->idx);
    dump("used->ring entry", e, sizeof(*e));
    kprintf("virtio-blk: trace:   = id %u, len %u (used index %u); status byte %u "
            "(VIRTIO_BLK_S_OK)\n",
            head, len, at, status);
}

void vblk_trace_rearm(const struct virtqueue *vq)
{
    if (vq->event_idx)
        kprintf("virtio-blk: trace: re-armed: used_event %u\n",
                index_after(&vq->avail->ring[vq->size]));
}
