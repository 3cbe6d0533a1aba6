/* The paravirtual I/O benchmarks: 4 KiB reads and writes through the block
 * layer at queue depth 1 and 32, and 64 KiB reads (blkfront's indirect
 * requests), on whichever disk the platform's transport found
 * (virtio-blk natively, blkfront under Xen). One op is one
 * request; the figure is the TSC time from the first submit to the last
 * completion over n requests, so at depth 1 it is a request's latency and
 * at depth 32 the inverse of the throughput. Each benchmark's detail line
 * adds what struct block_stats counted per request, the mean latency from
 * submit to completion, the frontend's own ticks per request (cpu: the
 * layer's and the transport's submit and completion paths, idle time left
 * out; under --icount its instructions, Xen's included under Xen), and
 * requests per second from the clock. The
 * transport's own switches (virtio.event_idx, blkfront.persistent,
 * blkfront.avoid_notify) tag the configuration, so each variant is a
 * column of its own. */
#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"
#include "bench/loop.h"
#include "drivers/block.h"
#include "kernel/console.h"
#include "kernel/printf.h"
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "kernel/wait_queue.h"
#include "mm/frame_alloc.h"
#include "mm/pgtable.h"
#include "pv/ops.h"

#define IO_DEPTH_MAX 32
#define IO_BYTES_MAX (64u << 10)
#define IO_SPAN (1u << 20) /* the bytes cycled over: the disk's first MiB */

BENCH_CONFIG_OPTION_UNLESS(virtio_event_idx, PV_CAP_DISK, "virtio.event_idx", "on");
BENCH_CONFIG_OPTION_UNLESS(blkfront_persistent, PV_CAP_XEN | PV_CAP_DISK, "blkfront.persistent",
                           "on");
BENCH_CONFIG_OPTION_UNLESS(blkfront_avoid_notify, PV_CAP_XEN | PV_CAP_DISK, "blkfront.avoid_notify",
                           "on");

static struct {
    struct block_device *d;
    void *buf[IO_DEPTH_MAX];
    struct block_request req[IO_DEPTH_MAX];
    enum block_op op;
    uint32_t bytes; /* a request's */
    struct spinlock lock;
    struct wait_queue wq;
    uint64_t to_submit, outstanding, next_block;
    uint64_t errors, latency, ops, ns; /* since prepare, warm-up included */
    struct block_stats before;
} io;

static void io_submit_next(struct block_request *r)
{
    r->op = io.op;
    r->sector = (io.next_block++ % (IO_SPAN / io.bytes)) * (io.bytes / BLOCK_SECTOR_SIZE);
    r->len = io.bytes;
    io.to_submit--;
    io.outstanding++;
    if (block_submit(io.d, r) != BLOCK_PENDING) {
        io.errors++;
        io.outstanding--;
    }
}

/* From the completion: each request, as it ends, goes out again for the
 * next block while any are left, which keeps the depth full. */
static void io_done(struct block_request *r)
{
    unsigned long flags = spin_lock_irqsave(&io.lock);

    io.latency += bench_cycles() - r->submit_tsc;
    if (r->status != BLOCK_OK)
        io.errors++;
    io.outstanding--;
    if (io.to_submit)
        io_submit_next(r);
    if (!io.outstanding)
        wait_queue_wake_one(&io.wq);
    spin_unlock_irqrestore(&io.lock, flags);
}

static uint64_t io_run(enum block_op op, unsigned depth, uint64_t n)
{
    uint64_t t0 = bench_cycles(), ns0 = time_now_ns(), ticks;
    unsigned long flags = spin_lock_irqsave(&io.lock);

    io.op = op;
    io.to_submit = n;
    block_plug(io.d); /* the first batch goes out with one kick */
    for (unsigned i = 0; i < depth && io.to_submit; i++) {
        io.req[i].buf = io.buf[i];
        io.req[i].done = io_done;
        io_submit_next(&io.req[i]);
    }
    block_unplug(io.d);
    while (io.outstanding)
        wait_queue_sleep(&io.wq, &io.lock);
    spin_unlock_irqrestore(&io.lock, flags);
    ticks = bench_cycles() - t0;
    io.ns += time_now_ns() - ns0;
    io.ops += n;
    return ticks;
}

/* Each buffer a row of frames, for the largest request: virtio-blk
 * hands the device one physical range. */
static const char *io_prepare(bool write, uint32_t bytes)
{
    io.d = block_first();
    if (!io.d)
        return "no block device";
    if (write && io.d->read_only)
        return "the disk is read-only: attach it writable";
    if (io.d->sectors < IO_SPAN / BLOCK_SECTOR_SIZE)
        return "the disk is smaller than the 1 MiB the benchmark cycles over";
    if (bytes > io.d->max_request)
        return "the disk takes smaller requests than this benchmark's";
    for (unsigned i = 0; i < IO_DEPTH_MAX; i++)
        if (!io.buf[i]) {
            uint64_t pa = frame_alloc_run(IO_BYTES_MAX / PAGE_SIZE);
            if (!pa)
                return "no memory for the buffers";
            io.buf[i] = phys_to_virt(pa);
        }
    io.bytes = bytes;
    io.errors = io.latency = io.ops = io.ns = io.next_block = 0;
    io.before = io.d->stats;
    return 0;
}

/* Hundredths of a per-request figure, for a detail field with two decimals. */
static uint64_t per_req_x100(uint64_t count)
{
    return io.ops ? count * 100 / io.ops : 0;
}

static const char *io_check(const char *name)
{
    const struct block_stats *s = &io.d->stats, *b = &io.before;
    uint64_t notes = per_req_x100(s->notifications - b->notifications);
    uint64_t irqs = per_req_x100(s->interrupts - b->interrupts);
    uint64_t grants = per_req_x100(s->grant_ops - b->grant_ops);
    uint64_t cpu = s->submit_ticks - b->submit_ticks + s->complete_ticks - b->complete_ticks;

    if (io.errors)
        return "a request failed";
    if (s->requests - b->requests != io.ops)
        return "the device completed another number of requests than were submitted";
    kprintf("bench: detail=%s transport=%s bytes=%u requests=%lu notifications_per_req=%lu.%02lu "
            "interrupts_per_req=%lu.%02lu grant_ops_per_req=%lu.%02lu latency=%lu cpu=%lu unit=%s "
            "rps=%lu\n",
            name, io.d->transport->name, io.bytes, io.ops, notes / 100, notes % 100, irqs / 100,
            irqs % 100, grants / 100, grants % 100, io.ops ? io.latency / io.ops : 0,
            io.ops ? cpu / io.ops : 0, tsc_unit(), io.ns ? io.ops * NSEC_PER_SEC / io.ns : 0);
    return 0;
}

#define IO_BENCH(id_, op_, write_, bytes_, depth_, what_)                                          \
    static const char *id_##_prepare(void)                                                         \
    {                                                                                              \
        return io_prepare(write_, bytes_);                                                         \
    }                                                                                              \
    static uint64_t id_##_measure(uint64_t n)                                                      \
    {                                                                                              \
        return io_run(op_, depth_, n);                                                             \
    }                                                                                              \
    static const char *id_##_check(void)                                                           \
    {                                                                                              \
        return io_check(#id_);                                                                     \
    }                                                                                              \
    BENCH_DEFINE(id_, io, what_, .iters = 256, .needs = PV_CAP_DISK, .prepare = id_##_prepare,     \
                 .measure = id_##_measure, .check = id_##_check)

IO_BENCH(disk_read_qd1, BLOCK_READ, false, 4096, 1, "one 4 KiB read, one request in flight");
IO_BENCH(disk_write_qd1, BLOCK_WRITE, true, 4096, 1, "one 4 KiB write, one request in flight");
IO_BENCH(disk_read_qd32, BLOCK_READ, false, 4096, 32, "one 4 KiB read, 32 requests in flight");
IO_BENCH(disk_write_qd32, BLOCK_WRITE, true, 4096, 32, "one 4 KiB write, 32 requests in flight");
IO_BENCH(disk_read64k_qd1, BLOCK_READ, false, IO_BYTES_MAX, 1,
         "one 64 KiB read, one request in flight");
IO_BENCH(disk_read64k_qd32, BLOCK_READ, false, IO_BYTES_MAX, 32,
         "one 64 KiB read, 32 requests in flight");
