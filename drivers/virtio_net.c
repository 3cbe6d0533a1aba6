/* virtio-net (virtio spec 5.1) over the modern PCI transport: netfront's
 * twin natively. Two queues: receive, kept full of frame-sized buffers
 * that are posted again as soon as their frame is copied up, and
 * transmit, whose buffers are taken back lazily when the next frame needs
 * room, so it needs no interrupt at all. Receive completions come by
 * MSI-X to a vector of the local APIC of the CPU that probed it. Structs
 * and numbers are Linux's UAPI <linux/virtio_net.h>. */
#include <stddef.h>

#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_net.h>

#include "arch/x86/lapic.h"
#include "arch/x86/trap_frame.h"
#include "drivers/net.h"
#include "drivers/virtio_net_trace.h"
#include "drivers/virtio_pci.h"
#include "drivers/virtqueue.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/string.h"

#define VNET_VECTOR 0x51 /* beside virtio-blk's, below the APIC timer's class */
#define VNET_MSIX_RX 0   /* receive's entry; transmit and the configuration get none */
#define VNET_RX_QUEUE 0  /* spec 5.1.2: receiveq1, then transmitq1 */
#define VNET_TX_QUEUE 1
#define VNET_REAP_BATCH 16    /* frames taken before the refills are published */
#define VNET_RING_BYTES 12288 /* vq_ring_bytes(VQ_MAX_SIZE), checked at probe */
/* Spec 5.1.6: with VERSION_1 every buffer starts with the 12-byte header. */
#define VNET_HDR sizeof(struct virtio_net_hdr_v1)
/* Spec 5.1.6.3.1: without MRG_RXBUF or the GUEST_ offloads, each receive
 * buffer holds the header and a whole frame. */
#define VNET_BUF (VNET_HDR + NET_FRAME_MAX)
#define VNET_BUF_STRIDE 1536

struct vnet_queue {
    struct virtqueue vq;
    volatile uint16_t *notify;
    uint16_t index;
};

static struct {
    struct virtio_pci vp;
    struct vnet_queue rx, tx;
    struct net_device dev;
    struct {
        bool kick, tx_done; /* the traced reply's kick and completion to come */
        uint16_t tx_head;
    } trace;
} vnet;

static _Alignas(4096) uint8_t rx_ring[VNET_RING_BYTES];
static _Alignas(4096) uint8_t tx_ring[VNET_RING_BYTES];
static _Alignas(64) uint8_t rx_bufs[VQ_MAX_SIZE][VNET_BUF_STRIDE];
static _Alignas(64) uint8_t tx_bufs[VQ_MAX_SIZE][VNET_BUF_STRIDE];

_Static_assert(VNET_BUF <= VNET_BUF_STRIDE, "a buffer holds the header and a frame");

static uint64_t bit(unsigned n)
{
    return 1ULL << n;
}

/* Spec 4.1.4.4: the queue's index, written to its notify address. The
 * count is atomic: receive's interrupt and another CPU's transmit both
 * add to it. */
static void notify(struct vnet_queue *q)
{
    *q->notify = q->index;
    __atomic_fetch_add(&vnet.dev.stats.notifications, 1, __ATOMIC_RELAXED);
}

/* The buffer is the request's token: it comes back with its frame. */
static bool rx_post(uint8_t *buf)
{
    struct vq_buf b = {.addr = (uint64_t)(uintptr_t)buf, .len = VNET_BUF, .device_writes = true};

    if (vq_add(&vnet.rx.vq, &b, 1, buf) < 0)
        return false;
    vnet.dev.stats.rx_refills++;
    return true;
}

/* A length the device wrote that leaves no frame, or more than the
 * buffer, is not handed up. */
static bool rx_whole(uint32_t len)
{
    return len > VNET_HDR && len <= VNET_BUF;
}

static void rx_deliver(const uint8_t *buf, uint32_t len)
{
    if (rx_whole(len))
        net_receive(&vnet.dev, buf + VNET_HDR, len - VNET_HDR);
}

/* Frames a batch at a time, each buffer posted again at once and the
 * batch's refills published with at most one notification. After the
 * last it re-arms the interrupt and looks once more: a frame that came in
 * between is not left waiting for the next. */
static void rx_reap(void)
{
    struct virtqueue *vq = &vnet.rx.vq;
    bool again = true, traced = false;
    uint16_t traced_at = 0;

    vq_quiet(vq);
    while (again) {
        unsigned n = 0;
        void *token;
        uint16_t head, old;
        uint32_t len;
        int got = 0;
        bool kick;

        while (n < VNET_REAP_BATCH && (got = vq_pop_used(vq, &token, &head, &len)) == 1) {
            bool t = rx_whole(len) && net_trace_rx((uint8_t *)token + VNET_HDR, len - VNET_HDR);
            if (t) {
                vnet_trace_rx(vq, (uint16_t)(vq->last_used - 1), head, len, token);
                traced = true;
                traced_at = vq->avail_idx;
            }
            rx_deliver(token, len);
            rx_post(token); /* the slot it just freed: cannot fail */
            n++;
        }
        if (got < 0)
            panic("virtio-net: the device completed a receive buffer that is not posted");
        old = vq->kicked_idx;
        kick = vq_publish(vq);
        if (traced && n)
            vnet_trace_refill(vq, traced_at, old, kick);
        if (kick)
            notify(&vnet.rx);
        again = n == VNET_REAP_BATCH || vq_arm_interrupt(vq);
    }
    if (traced)
        vnet_trace_rearm(vq);
}

static void vnet_interrupt(struct trap_frame *f)
{
    (void)f;
    lapic_eoi();
    vnet.dev.stats.interrupts++;
    rx_reap();
}

/* The buffers the device has finished sending, free again. */
static void tx_reclaim(void)
{
    void *token;
    uint16_t head;
    uint32_t len;
    int got;

    while ((got = vq_pop_used(&vnet.tx.vq, &token, &head, &len)) == 1)
        if (vnet.trace.tx_done && head == vnet.trace.tx_head) {
            vnet_trace_tx_done(&vnet.tx.vq, (uint16_t)(vnet.tx.vq.last_used - 1), head, len);
            vnet.trace.tx_done = false;
        }
    if (got < 0)
        panic("virtio-net: the device completed a transmit buffer that is not in flight");
}

/* The header all zero: no checksum to fill in, no segmentation. */
static bool vnet_transmit(struct net_device *d, const void *frame, unsigned len)
{
    struct virtqueue *vq = &vnet.tx.vq;
    struct vq_buf b;
    uint8_t *buf;
    int head;

    (void)d;
    tx_reclaim();
    if (len > NET_FRAME_MAX || vq->num_free == 0)
        return false;
    buf = tx_bufs[vq_next_head(vq)];
    memset(buf, 0, VNET_HDR);
    memcpy(buf + VNET_HDR, frame, len);
    b = (struct vq_buf){.addr = (uint64_t)(uintptr_t)buf, .len = (uint32_t)(VNET_HDR + len)};
    head = vq_add(vq, &b, 1, buf);
    if (head >= 0 && net_tracing) {
        vnet_trace_tx(vq, (uint16_t)head, buf);
        vnet.trace = (typeof(vnet.trace)){.kick = true, .tx_done = true, .tx_head = (uint16_t)head};
    }
    return head >= 0;
}

/* Spec 2.7.13: one notification for everything queued since the last,
 * and none when the device said it is still reading the ring. */
static void vnet_kick(struct net_device *d)
{
    uint16_t old = vnet.tx.vq.kicked_idx;
    bool kick = vq_publish(&vnet.tx.vq);

    (void)d;
    if (vnet.trace.kick) {
        vnet_trace_kick(&vnet.tx.vq, old, kick, vnet.tx.notify, vnet.tx.index);
        vnet.trace.kick = false;
    }
    if (kick)
        notify(&vnet.tx);
}

static const struct net_transport virtio_net_transport = {
    .name = "virtio-net", .transmit = vnet_transmit, .kick = vnet_kick};

/* Spec 5.1.5: without VIRTIO_NET_F_MAC the driver picks one; this one is
 * locally administered (bit 1 of the first byte). Spec 4.1.3.1: read
 * again while the configuration generation changes under the read. */
static void read_mac(uint64_t features, uint8_t *mac)
{
    static const uint8_t local[NET_ETH_ALEN] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
    volatile const uint8_t *cfg = vnet.vp.device + offsetof(struct virtio_net_config, mac);
    uint8_t gen;

    if (!(features & bit(VIRTIO_NET_F_MAC))) {
        memcpy(mac, local, NET_ETH_ALEN);
        return;
    }
    do {
        gen = vnet.vp.common->config_generation;
        for (unsigned i = 0; i < NET_ETH_ALEN; i++)
            mac[i] = cfg[i];
    } while (gen != vnet.vp.common->config_generation);
}

/* One queue's rings, at most VQ_MAX_SIZE entries of what the device offers. */
static bool setup_queue(struct vnet_queue *q, uint16_t index, uint8_t *ring, uint64_t features,
                        uint16_t msix_entry)
{
    uint16_t size = virtio_pci_queue_size(&vnet.vp, index);

    if (size == 0 || (size & (size - 1)))
        return false;
    if (size > VQ_MAX_SIZE)
        size = VQ_MAX_SIZE;
    if (vq_ring_bytes(size) > VNET_RING_BYTES)
        panic("virtio-net: %zu bytes of ring for %u entries", vq_ring_bytes(size), size);
    vq_init(&q->vq, size, ring, NULL, features & bit(VIRTIO_RING_F_EVENT_IDX));
    q->index = index;
    q->notify = virtio_pci_setup_queue(&vnet.vp, index, &q->vq, msix_entry);
    return q->notify != NULL;
}

/* Every receive buffer posted before DRIVER_OK: the device may start
 * writing frames the moment it is told it may (it is told once, after). */
static bool setup_queues(uint64_t features)
{
    if (!setup_queue(&vnet.rx, VNET_RX_QUEUE, rx_ring, features, VNET_MSIX_RX) ||
        !setup_queue(&vnet.tx, VNET_TX_QUEUE, tx_ring, features, VIRTIO_MSI_NO_VECTOR))
        return false;
    for (uint16_t i = 0; i < vnet.rx.vq.size; i++)
        rx_post(rx_bufs[i]);
    vq_publish(&vnet.rx.vq);
    vq_quiet(&vnet.tx.vq); /* spec 2.7.10: transmit completions are polled */
    return true;
}

static void describe(uint64_t features)
{
    const uint8_t *m = vnet.dev.mac;

    kprintf("virtio-net: %02x:%02x.%x, mac %02x:%02x:%02x:%02x:%02x:%02x%s, features%s%s, "
            "%u receive and %u transmit entries, MSI-X vector 0x%x\n",
            vnet.vp.pci.addr.bus, vnet.vp.pci.addr.dev, vnet.vp.pci.addr.fn, m[0], m[1], m[2], m[3],
            m[4], m[5], features & bit(VIRTIO_NET_F_MAC) ? "" : " (ours: none offered)",
            features & bit(VIRTIO_NET_F_MAC) ? " mac" : "",
            features & bit(VIRTIO_RING_F_EVENT_IDX) ? " event_idx" : "", vnet.rx.vq.size,
            vnet.tx.vq.size, VNET_VECTOR);
}

/* Spec 3.1.1's order: status, features, the queues and their interrupt,
 * then DRIVER_OK; only then is the device the network layer's. */
void virtio_net_probe(void)
{
    uint64_t features = virtio_pci_begin(&vnet.vp, "virtio-net", VIRTIO_ID_NET,
                                         bit(VIRTIO_F_VERSION_1) | bit(VIRTIO_NET_F_MAC) |
                                             (virtio_event_idx ? bit(VIRTIO_RING_F_EVENT_IDX) : 0));

    if (!features)
        return;
    vnet.dev =
        (struct net_device){.name = "eth0", .transport = &virtio_net_transport, .priv = &vnet};
    trap_set_handler(VNET_VECTOR, vnet_interrupt);
    if (!pci_msix_route(&vnet.vp.pci, VNET_MSIX_RX, VNET_VECTOR) || !setup_queues(features)) {
        kprintf("virtio-net: no MSI-X entry, or no receive or transmit queue\n");
        virtio_pci_fail(&vnet.vp);
        return;
    }
    read_mac(features, vnet.dev.mac);
    describe(features);
    virtio_pci_ready(&vnet.vp);
    vq_arm_interrupt(&vnet.rx.vq);
    notify(&vnet.rx);
    net_register(&vnet.dev);
}
