/* The driver's side of the split virtqueue (drivers/virtqueue.h). x86 keeps
 * stores in order and loads in order, so publishing needs only the
 * compiler's barrier; a store followed by a load of the other side's
 * index needs a full fence (virtio 1.x, 2.7.7.2 and 2.7.10.1). */
#include "drivers/virtqueue.h"

#define READ_ONCE16(x) (*(volatile uint16_t *)&(x))
#define WRITE_ONCE16(x, v) (*(volatile uint16_t *)&(x) = (v))

static uint16_t *used_event(struct virtqueue *vq)
{
    return (uint16_t *)&vq->avail->ring[vq->size];
}

static uint16_t *avail_event(struct virtqueue *vq)
{
    return (uint16_t *)&vq->used->ring[vq->size];
}

size_t vq_ring_bytes(uint16_t size)
{
    return vring_size(size, VQ_RING_ALIGN);
}

void vq_init(struct virtqueue *vq, uint16_t size, void *ring, struct vring_desc *indirect,
             bool event_idx)
{
    struct vring vr;

    vring_init(&vr, size, ring, VQ_RING_ALIGN);
    *vq = (struct virtqueue){.size = size,
                             .desc = vr.desc,
                             .avail = vr.avail,
                             .used = vr.used,
                             .indirect = indirect,
                             .event_idx = event_idx,
                             .num_free = size};
    for (uint16_t i = 0; i + 1 < size; i++)
        vq->desc[i].next = i + 1;
}

static void fill_chain(struct vring_desc *d, const struct vq_buf *bufs, unsigned n,
                       const uint16_t *next)
{
    for (unsigned i = 0; i < n; i++) {
        d[next[i]].addr = bufs[i].addr;
        d[next[i]].len = bufs[i].len;
        d[next[i]].flags =
            (bufs[i].device_writes ? VRING_DESC_F_WRITE : 0) | (i + 1 < n ? VRING_DESC_F_NEXT : 0);
        d[next[i]].next = i + 1 < n ? next[i + 1] : 0;
    }
}

/* An indirect table is the head's own, so the ring gives up one slot. */
int vq_add(struct virtqueue *vq, const struct vq_buf *bufs, unsigned n, void *token)
{
    uint16_t slots[VQ_MAX_CHAIN] = {0}, used = vq->indirect && n > 1 ? 1 : n;
    uint16_t head = vq->free_head;

    if (n == 0 || n > VQ_MAX_CHAIN || used > vq->num_free)
        return -1;
    for (uint16_t i = 0, d = head; i < used; i++, d = vq->desc[d].next)
        slots[i] = d;
    vq->free_head = vq->desc[slots[used - 1]].next;
    vq->num_free -= used;
    if (used == 1 && n > 1) {
        struct vring_desc *table = vq->indirect + (size_t)head * VQ_MAX_CHAIN;
        uint16_t order[VQ_MAX_CHAIN];

        for (uint16_t i = 0; i < n; i++)
            order[i] = i;
        fill_chain(table, bufs, n, order);
        vq->desc[head] = (struct vring_desc){.addr = (uint64_t)(uintptr_t)table,
                                             .len = n * sizeof(struct vring_desc),
                                             .flags = VRING_DESC_F_INDIRECT};
    } else {
        fill_chain(vq->desc, bufs, n, slots);
    }
    vq->chain_len[head] = used;
    vq->token[head] = token;
    vq->avail->ring[vq->avail_idx & (vq->size - 1)] = head;
    vq->avail_idx++;
    return head;
}

/* vring_need_event(): was the device's event index passed between the
 * last decision and this one? Each batch is judged once. */
bool vq_publish(struct virtqueue *vq)
{
    uint16_t old = vq->kicked_idx, new = vq->avail_idx;

    __atomic_signal_fence(__ATOMIC_RELEASE); /* the entries before the index */
    WRITE_ONCE16(vq->avail->idx, new);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the index before the event read */
    vq->kicked_idx = new;
    if (old == new)
        return false;
    if (vq->event_idx)
        return vring_need_event(READ_ONCE16(*avail_event(vq)), new, old);
    return !(READ_ONCE16(vq->used->flags) & VRING_USED_F_NO_NOTIFY);
}

int vq_pop_used(struct virtqueue *vq, void **token, uint16_t *head, uint32_t *len)
{
    struct vring_used_elem e;
    uint16_t id, d;

    if (READ_ONCE16(vq->used->idx) == vq->last_used)
        return 0;
    __atomic_signal_fence(__ATOMIC_ACQUIRE); /* the index before the entry */
    e = vq->used->ring[vq->last_used & (vq->size - 1)];
    if (e.id >= vq->size || !vq->token[e.id])
        return -1;
    id = (uint16_t)e.id;
    vq->last_used++;
    *token = vq->token[id];
    *head = id;
    *len = e.len;
    vq->token[id] = NULL;
    d = id;
    for (uint8_t i = 1; i < vq->chain_len[id]; i++)
        d = vq->desc[d].next;
    vq->desc[d].next = vq->free_head;
    vq->free_head = id;
    vq->num_free += vq->chain_len[id];
    return 1;
}

void vq_quiet(struct virtqueue *vq)
{
    if (!vq->event_idx)
        WRITE_ONCE16(vq->avail->flags, VRING_AVAIL_F_NO_INTERRUPT);
}

bool vq_arm_interrupt(struct virtqueue *vq)
{
    if (vq->event_idx)
        WRITE_ONCE16(*used_event(vq), vq->last_used);
    else
        WRITE_ONCE16(vq->avail->flags, 0);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the request before the check */
    return READ_ONCE16(vq->used->idx) != vq->last_used;
}
