/* The block layer: one request path above every disk transport. A
 * transport (drivers/virtio_blk.c natively, xen/blkfront.c under Xen) finds
 * its device, registers it here, and from then on only moves requests: it
 * is handed each request by block_submit() and gives it back through
 * block_complete(). Everything above (the disk workload, the benchmarks)
 * sees struct block_device and these functions only, whichever transport
 * carries them, as the rest of the kernel sees the pv ops. */
#ifndef DRIVERS_BLOCK_H
#define DRIVERS_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/spinlock.h"

#define BLOCK_SECTOR_SIZE 512u

enum block_op { BLOCK_READ, BLOCK_WRITE, BLOCK_FLUSH };

/* Request outcomes. A transport maps its device's status onto these. */
enum block_status {
    BLOCK_OK = 0,
    BLOCK_EIO,     /* the device reported an error */
    BLOCK_EROFS,   /* a write to a read-only device */
    BLOCK_ERANGE,  /* past the end of the device */
    BLOCK_ENODEV,  /* the device went away (its backend closed) */
    BLOCK_EINVAL,  /* malformed: a bad length, alignment or response */
    BLOCK_PENDING, /* submitted, not yet completed */
};

struct block_request;
typedef void (*block_done_fn)(struct block_request *r);

/* One read, write or flush. buf is kernel memory at VA == guest-physical
 * address, page-aligned, len a multiple of the sector size (0 for a flush);
 * the transport splits it into its device's segments. done runs once, from
 * the completion (interrupt or upcall context: it must not sleep). */
struct block_request {
    enum block_op op;
    uint64_t sector;
    void *buf;
    uint32_t len;
    block_done_fn done;
    void *data;
    volatile enum block_status status;
    uint64_t submit_tsc;        /* set by block_submit, for latency */
    struct block_request *next; /* the transport's own list while in flight */
};

struct block_device;

/* What a transport gives the layer. */
struct block_transport {
    const char *name; /* "virtio-blk", "blkfront" */
    /* Queues r on the device; returns BLOCK_PENDING, or a status at once
     * (the request is then not queued). Called with interrupts disabled. */
    enum block_status (*submit)(struct block_device *d, struct block_request *r);
    /* Tells the device about what submit queued since the last kick (one
     * notification for a batch); may notify nothing when the device said
     * it need not be told. Called with interrupts disabled. */
    void (*kick)(struct block_device *d);
};

/* Counters every transport keeps the same way, for the benchmarks' rows. */
struct block_stats {
    uint64_t requests;      /* completed requests */
    uint64_t notifications; /* times the device was told (a hypercall, an MMIO write) */
    uint64_t interrupts;    /* completion interrupts or upcalls taken */
    uint64_t grant_ops;     /* grant-table operations (0 natively) */
    uint64_t indirect;      /* requests whose segment list left the ring: blkfront's
                             * BLKIF_OP_INDIRECT, virtio's indirect descriptors */
    /* TSC ticks (instructions under icount) spent on the way in, in
     * block_submit and the kicks (the layer counts them), and on the way
     * out, in the transport's completion path (the transport counts them);
     * neither holds time the CPU spent idle. */
    uint64_t submit_ticks;
    uint64_t complete_ticks;
};

struct block_device {
    const char *name; /* "vda", "xvda" */
    const struct block_transport *transport;
    void *priv;       /* the transport's own state */
    uint64_t sectors; /* capacity, in BLOCK_SECTOR_SIZE units */
    bool read_only;
    bool can_flush;       /* the device has a cache that flush writes back */
    uint32_t max_request; /* bytes one request may carry */
    unsigned queue_depth; /* requests the device can hold at once */
    struct block_stats stats;
    /* The layer's own, under lock: requests waiting for a free slot of the
     * device's queue, and how many the transport holds. */
    struct spinlock lock;
    struct block_request *waiting, **waiting_tail;
    unsigned in_flight;
    unsigned plugged; /* block_plug() nesting: kicks held back */
    bool kick_owed;   /* something was queued while plugged */
};

/* A transport's search for its devices, registering each it can use.
 * Runs once, in thread context with interrupts on. */
typedef void (*block_probe_fn)(void);

/* From a backend's install function: a transport this platform has. */
void block_add_probe(block_probe_fn probe);

/* Runs every probe, the first time only. */
void block_probe_all(void);

/* The transports' probes, the twins: virtio-blk over PCI natively
 * (drivers/virtio_blk.c), blkfront under Xen (xen/blkfront.c). */
void virtio_blk_probe(void);
void blkfront_probe(void);

/* A transport registers its device once it is ready to take requests. */
void block_register(struct block_device *d);

/* Ends a request: called by the transport from its completion path,
 * holding none of its own locks that its submit takes (the layer may hand
 * it the next waiting request from here, and ends any it refuses). */
void block_complete(struct block_device *d, struct block_request *r, enum block_status status);

/* The first registered device, or NULL if no transport found one; runs
 * the probes first if nothing has yet. */
struct block_device *block_first(void);

/* Queues r (status BLOCK_PENDING until done runs) and returns at once;
 * requests beyond the device's queue depth wait in the layer. The rule:
 * done never runs inside block_submit(), so a caller may hold a lock its
 * done takes. A request refused at once (bad range or length, a write to
 * a read-only device, or the transport's own refusal) gets its status
 * here and done never runs; one the transport refuses later, as it leaves
 * the layer's queue, ends from the completion that made room for it. A
 * flush on a device without a cache returns BLOCK_OK at once, no done:
 * there is nothing to write back. done runs without any of the layer's
 * locks held, so it may submit. */
enum block_status block_submit(struct block_device *d, struct block_request *r);

/* Holds back the device's notification for what is submitted until the
 * matching block_unplug(), so a batch of requests costs one kick. Nests. */
void block_plug(struct block_device *d);
void block_unplug(struct block_device *d);

/* Submits r and sleeps until it completes; returns its status. Thread context. */
enum block_status block_io(struct block_device *d, enum block_op op, uint64_t sector, void *buf,
                           uint32_t len);

/* A status's name, for messages. */
const char *block_status_name(enum block_status s);

#endif
