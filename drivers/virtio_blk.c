/* virtio-blk (virtio spec 5.2) over the modern PCI transport: blkfront's
 * twin natively. One request queue; each request is a header the device
 * reads, the data, and a status byte it writes, chained through one
 * indirect descriptor when VIRTIO_RING_F_INDIRECT_DESC is agreed. Its
 * completions come by MSI-X to a vector of the local APIC of the CPU that
 * probed it. */
#include <stddef.h>

#include <linux/virtio_blk.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>

#include "arch/x86/lapic.h"
#include "arch/x86/trap_frame.h"
#include "bench/loop.h"
#include "drivers/block.h"
#include "drivers/virtio_blk_trace.h"
#include "drivers/virtio_pci.h"
#include "drivers/virtqueue.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/spinlock.h"
#include "mm/pgtable.h"

#define VBLK_VECTOR 0x50      /* below the APIC timer's and IPIs' class */
#define VBLK_MSIX_ENTRY 0     /* the queue's; the configuration gets none */
#define VBLK_MAX_SEGMENTS 17  /* data segments of one request: 64 KiB at any alignment */
#define VBLK_REAP_BATCH 16    /* completions taken per hold of the lock */
#define VBLK_RING_BYTES 12288 /* vq_ring_bytes(VQ_MAX_SIZE), checked at probe */

static bool use_indirect = true;
OPTION_BOOL(use_indirect, "virtio.indirect", "offer VIRTIO_RING_F_INDIRECT_DESC");
static uint64_t trace_sector = UINT64_MAX;
OPTION_UINT(trace_sector, "virtio.trace", 0, UINT64_MAX - 1,
            "trace the first read of this sector: its descriptors, avail entry, notify and used "
            "entry (docs/io.md)");

/* What the device reads before the data and writes after it, one per
 * ring slot (the request's head descriptor). */
struct vblk_slot {
    struct virtio_blk_outhdr hdr;
    uint8_t status;
};

static struct {
    struct virtio_pci vp;
    struct virtqueue vq;
    struct block_device dev;
    struct spinlock lock; /* the virtqueue */
    volatile uint16_t *notify;
    unsigned max_segments;
    enum { TRACE_WAIT, TRACE_SUBMITTED, TRACE_PUSHED, TRACE_ANSWERED, TRACE_OVER } trace;
    uint16_t trace_head;
} vblk;

static _Alignas(4096) uint8_t ring_mem[VBLK_RING_BYTES];
static _Alignas(16) struct vring_desc indirect_tables[VQ_MAX_SIZE * VQ_MAX_CHAIN];
static struct vblk_slot slots[VQ_MAX_SIZE];

static const uint32_t blk_type[] = {[BLOCK_READ] = VIRTIO_BLK_T_IN,
                                    [BLOCK_WRITE] = VIRTIO_BLK_T_OUT,
                                    [BLOCK_FLUSH] = VIRTIO_BLK_T_FLUSH};

/* The data split where its pages end, as a driver of scattered pages would. */
static unsigned data_segments(const struct block_request *r, struct vq_buf *bufs)
{
    uint64_t addr = (uint64_t)(uintptr_t)r->buf, end = addr + r->len;
    unsigned n = 0;

    while (addr < end) {
        uint64_t next = (addr & ~(PAGE_SIZE - 1)) + PAGE_SIZE;
        uint64_t stop = next < end ? next : end;
        bufs[n++] = (struct vq_buf){
            .addr = addr, .len = (uint32_t)(stop - addr), .device_writes = r->op == BLOCK_READ};
        addr = stop;
    }
    return n;
}

static enum block_status vblk_submit(struct block_device *d, struct block_request *r)
{
    struct vq_buf bufs[VBLK_MAX_SEGMENTS + 2];
    unsigned n = 1;
    struct vblk_slot *s;
    int head;

    (void)d;
    spin_lock(&vblk.lock);
    s = &slots[vq_next_head(&vblk.vq)];
    s->hdr = (struct virtio_blk_outhdr){.type = blk_type[r->op], .sector = r->sector};
    s->status = 0xff; /* no status the device would write */
    bufs[0] = (struct vq_buf){.addr = (uint64_t)(uintptr_t)&s->hdr, .len = sizeof(s->hdr)};
    if (r->op != BLOCK_FLUSH)
        n += data_segments(r, bufs + 1);
    bufs[n++] =
        (struct vq_buf){.addr = (uint64_t)(uintptr_t)&s->status, .len = 1, .device_writes = true};
    head = vq_add(&vblk.vq, bufs, n, r);
    if (head >= 0 && vblk.trace == TRACE_WAIT && r->op == BLOCK_READ && r->sector == trace_sector) {
        vblk_trace_request(&vblk.vq, (uint16_t)head, &s->hdr, sizeof(s->hdr));
        vblk.trace = TRACE_SUBMITTED;
        vblk.trace_head = (uint16_t)head;
    }
    if (head >= 0 && vblk.vq.indirect)
        vblk.dev.stats.indirect++;
    spin_unlock(&vblk.lock);
    return head < 0 ? BLOCK_EINVAL : BLOCK_PENDING;
}

/* Spec 2.7.13: one notification for everything published since the last,
 * and none when the device said it is still reading the ring. */
static void vblk_kick(struct block_device *d)
{
    uint16_t old = vblk.vq.kicked_idx;
    bool notify;

    spin_lock(&vblk.lock);
    notify = vq_publish(&vblk.vq);
    if (vblk.trace == TRACE_SUBMITTED) {
        vblk_trace_kick(&vblk.vq, old, notify, vblk.notify);
        vblk.trace = TRACE_PUSHED;
    }
    if (notify) {
        *vblk.notify = 0; /* the queue's index */
        d->stats.notifications++;
    }
    spin_unlock(&vblk.lock);
}

static enum block_status status_of(uint8_t s)
{
    switch (s) {
    case VIRTIO_BLK_S_OK:
        return BLOCK_OK;
    case VIRTIO_BLK_S_IOERR:
        return BLOCK_EIO;
    case VIRTIO_BLK_S_UNSUPP:
        return BLOCK_EINVAL;
    default:
        return BLOCK_EINVAL; /* a status the spec does not have: malformed */
    }
}

/* Takes completions a batch at a time, reading each status before its
 * slot is free for another request, and ends them outside the lock (the
 * layer may submit the next from there). After the last it re-arms the
 * interrupt and looks once more: one that came in between is not lost. */
static void vblk_reap(void)
{
    struct block_request *done[VBLK_REAP_BATCH];
    enum block_status status[VBLK_REAP_BATCH];
    bool again = true;

    spin_lock(&vblk.lock);
    vq_quiet(&vblk.vq);
    spin_unlock(&vblk.lock);
    while (again) {
        unsigned n = 0;
        void *token;
        uint16_t head;
        uint32_t len;
        int got = 0;

        spin_lock(&vblk.lock);
        while (n < VBLK_REAP_BATCH && (got = vq_pop_used(&vblk.vq, &token, &head, &len)) == 1) {
            done[n] = token;
            status[n++] = status_of(slots[head].status);
            if (vblk.trace == TRACE_PUSHED && head == vblk.trace_head) {
                vblk_trace_used(&vblk.vq, (uint16_t)(vblk.vq.last_used - 1), head, len,
                                slots[head].status);
                vblk.trace = TRACE_ANSWERED;
            }
        }
        if (got < 0)
            panic("virtio-blk: the device completed a descriptor that is not in flight");
        again = n == VBLK_REAP_BATCH || vq_arm_interrupt(&vblk.vq);
        if (vblk.trace == TRACE_ANSWERED && !again) {
            vblk_trace_rearm(&vblk.vq);
            vblk.trace = TRACE_OVER;
        }
        spin_unlock(&vblk.lock);
        block_plug(&vblk.dev); /* what waited for these slots goes out with one kick */
        for (unsigned i = 0; i < n; i++)
            block_complete(&vblk.dev, done[i], status[i]);
        block_unplug(&vblk.dev);
    }
}

static void vblk_interrupt(struct trap_frame *f)
{
    uint64_t t0 = bench_cycles();

    (void)f;
    lapic_eoi();
    vblk.dev.stats.interrupts++;
    vblk_reap();
    vblk.dev.stats.complete_ticks += bench_cycles() - t0;
}

static const struct block_transport virtio_blk_transport = {
    .name = "virtio-blk", .submit = vblk_submit, .kick = vblk_kick};

static uint64_t bit(unsigned n)
{
    return 1ULL << n;
}

/* The features this driver can use; VERSION_1 it cannot do without. */
static uint64_t wanted_features(void)
{
    return bit(VIRTIO_F_VERSION_1) | bit(VIRTIO_BLK_F_RO) | bit(VIRTIO_BLK_F_FLUSH) |
           bit(VIRTIO_BLK_F_SEG_MAX) | (virtio_event_idx ? bit(VIRTIO_RING_F_EVENT_IDX) : 0) |
           (use_indirect ? bit(VIRTIO_RING_F_INDIRECT_DESC) : 0);
}

/* Without indirect descriptors a request holds its segments and two more
 * in the ring itself, so fewer fit at once. */
static void describe(uint64_t features, uint16_t size)
{
    struct block_device *d = &vblk.dev;
    uint32_t seg_max =
        features & bit(VIRTIO_BLK_F_SEG_MAX)
            ? virtio_pci_config32(&vblk.vp, offsetof(struct virtio_blk_config, seg_max))
            : 1;
    unsigned segs = seg_max < VBLK_MAX_SEGMENTS ? seg_max : VBLK_MAX_SEGMENTS;
    bool indirect = features & bit(VIRTIO_RING_F_INDIRECT_DESC);

    if (segs == 0)
        segs = 1;
    vblk.max_segments = segs;
    *d = (struct block_device){
        .name = "vda",
        .transport = &virtio_blk_transport,
        .sectors = virtio_pci_config64(&vblk.vp, offsetof(struct virtio_blk_config, capacity)),
        .read_only = features & bit(VIRTIO_BLK_F_RO),
        .can_flush = features & bit(VIRTIO_BLK_F_FLUSH),
        /* a buffer not page-aligned spans one page more than its length */
        .max_request = segs > 1 ? (segs - 1) * PAGE_SIZE : BLOCK_SECTOR_SIZE,
        .queue_depth = indirect ? size : size / (segs + 2),
    };
    kprintf("virtio-blk: %02x:%02x.%x, features%s%s%s%s, %u entries, %u segments per "
            "request, MSI-X vector 0x%x\n",
            vblk.vp.pci.addr.bus, vblk.vp.pci.addr.dev, vblk.vp.pci.addr.fn,
            features & bit(VIRTIO_RING_F_EVENT_IDX) ? " event_idx" : "",
            indirect ? " indirect" : "", d->can_flush ? " flush" : "", d->read_only ? " ro" : "",
            size, segs, VBLK_VECTOR);
}

static bool setup_queue(uint64_t features)
{
    uint16_t size = virtio_pci_queue_size(&vblk.vp, 0);

    if (size == 0 || (size & (size - 1)))
        return false;
    if (size > VQ_MAX_SIZE)
        size = VQ_MAX_SIZE;
    if (vq_ring_bytes(size) > sizeof(ring_mem))
        panic("virtio-blk: %zu bytes of ring for %u entries", vq_ring_bytes(size), size);
    vq_init(&vblk.vq, size, ring_mem,
            features & bit(VIRTIO_RING_F_INDIRECT_DESC) ? indirect_tables : NULL,
            features & bit(VIRTIO_RING_F_EVENT_IDX));
    vblk.notify = virtio_pci_setup_queue(&vblk.vp, 0, &vblk.vq, VBLK_MSIX_ENTRY);
    if (!vblk.notify)
        return false;
    describe(features, size);
    return true;
}

/* Spec 3.1.1's order: status, features, the queue and its interrupt, then
 * DRIVER_OK; only then is the device the block layer's. */
void virtio_blk_probe(void)
{
    uint64_t features =
        virtio_pci_begin(&vblk.vp, "virtio-blk", VIRTIO_ID_BLOCK, wanted_features());

    if (!features)
        return;
    trap_set_handler(VBLK_VECTOR, vblk_interrupt);
    if (!pci_msix_route(&vblk.vp.pci, VBLK_MSIX_ENTRY, VBLK_VECTOR) || !setup_queue(features)) {
        kprintf("virtio-blk: no MSI-X entry or request queue\n");
        virtio_pci_fail(&vblk.vp);
        return;
    }
    virtio_pci_ready(&vblk.vp);
    vq_arm_interrupt(&vblk.vq);
    block_register(&vblk.dev);
}
