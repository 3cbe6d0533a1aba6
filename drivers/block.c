/* The block layer: checks each request once for every transport, queues
 * what the device has no room for, and counts what the benchmarks report.
 * The transport sees a request only when its queue has a free slot. */
#include "drivers/block.h"

#include <stddef.h>

#include "bench/loop.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/spinlock.h"
#include "kernel/wait_queue.h"

#define BLOCK_MAX_DEVICES 4
#define BLOCK_MAX_PROBES 4

static struct block_device *devices[BLOCK_MAX_DEVICES];
static unsigned nr_devices;
static block_probe_fn probes[BLOCK_MAX_PROBES];
static unsigned nr_probes;
static bool probed;

void block_add_probe(block_probe_fn probe)
{
    if (nr_probes < BLOCK_MAX_PROBES)
        probes[nr_probes++] = probe;
}

void block_probe_all(void)
{
    if (probed)
        return;
    probed = true;
    for (unsigned i = 0; i < nr_probes; i++)
        probes[i]();
}

void block_register(struct block_device *d)
{
    if (nr_devices == BLOCK_MAX_DEVICES) {
        kprintf("block: %s ignored: already %u devices\n", d->name, nr_devices);
        return;
    }
    d->waiting = NULL;
    d->waiting_tail = &d->waiting;
    d->in_flight = 0;
    d->plugged = 0;
    d->kick_owed = false;
    if (d->queue_depth == 0)
        d->queue_depth = 1;
    devices[nr_devices++] = d;
    kprintf("block: %s (%s): %lu sectors of %u bytes%s%s, queue depth %u\n", d->name,
            d->transport->name, d->sectors, BLOCK_SECTOR_SIZE, d->read_only ? ", read-only" : "",
            d->can_flush ? ", write cache" : "", d->queue_depth);
}

struct block_device *block_first(void)
{
    block_probe_all();
    return nr_devices ? devices[0] : NULL;
}

/* What no transport should have to check: the request's own shape, and
 * whether the device can take it at all. BLOCK_PENDING means it can. */
static enum block_status block_check(const struct block_device *d, const struct block_request *r)
{
    uint64_t sectors = r->len / BLOCK_SECTOR_SIZE;

    if (r->op == BLOCK_FLUSH)
        return r->len ? BLOCK_EINVAL : d->can_flush ? BLOCK_PENDING : BLOCK_OK;
    if (r->op != BLOCK_READ && r->op != BLOCK_WRITE)
        return BLOCK_EINVAL;
    if (r->len == 0 || r->len % BLOCK_SECTOR_SIZE || ((uintptr_t)r->buf & (BLOCK_SECTOR_SIZE - 1)))
        return BLOCK_EINVAL;
    if (r->len > d->max_request)
        return BLOCK_EINVAL;
    if (r->sector > d->sectors || sectors > d->sectors - r->sector)
        return BLOCK_ERANGE;
    if (r->op == BLOCK_WRITE && d->read_only)
        return BLOCK_EROFS;
    return BLOCK_PENDING;
}

/* Gives r to the transport; BLOCK_PENDING if it took it, else its
 * refusal, the request untouched. */
static enum block_status hand_over_locked(struct block_device *d, struct block_request *r)
{
    enum block_status s = d->transport->submit(d, r);

    if (s == BLOCK_PENDING)
        d->in_flight++;
    return s;
}

/* The transport's notification for what was just handed over, or the
 * debt of one while plugged. */
static void kick_locked(struct block_device *d)
{
    if (d->plugged)
        d->kick_owed = true;
    else if (d->transport->kick)
        d->transport->kick(d);
}

/* From a completion: hands waiting requests to the transport while its
 * queue has room, then kicks once for the batch. Those it refuses are
 * chained on *refused, to be ended once the lock is dropped. */
static void dispatch_locked(struct block_device *d, struct block_request **refused)
{
    bool queued = false;

    while (d->waiting && d->in_flight < d->queue_depth) {
        struct block_request *r = d->waiting;
        enum block_status s;

        d->waiting = r->next;
        if (!d->waiting)
            d->waiting_tail = &d->waiting;
        r->next = NULL;
        s = hand_over_locked(d, r);
        if (s == BLOCK_PENDING) {
            queued = true;
        } else {
            r->status = s;
            r->next = *refused;
            *refused = r;
        }
    }
    if (queued)
        kick_locked(d);
}

static void end_refused(struct block_request *r)
{
    while (r) {
        struct block_request *next = r->next;
        if (r->done)
            r->done(r);
        r = next;
    }
}

/* Only r can reach the transport here (the queue is empty whenever the
 * device has room), so a refusal is r's and is returned, never passed to
 * done: the submitter may hold a lock its done takes. */
enum block_status block_submit(struct block_device *d, struct block_request *r)
{
    enum block_status s = block_check(d, r);
    unsigned long flags;

    r->status = s;
    if (s != BLOCK_PENDING)
        return s;
    r->submit_tsc = bench_cycles();
    r->next = NULL;
    flags = spin_lock_irqsave(&d->lock);
    if (!d->waiting && d->in_flight < d->queue_depth) {
        s = hand_over_locked(d, r);
        if (s == BLOCK_PENDING)
            kick_locked(d);
        else
            r->status = s;
    } else {
        *d->waiting_tail = r;
        d->waiting_tail = &r->next;
    }
    d->stats.submit_ticks += bench_cycles() - r->submit_tsc;
    spin_unlock_irqrestore(&d->lock, flags);
    return s;
}

void block_plug(struct block_device *d)
{
    unsigned long flags = spin_lock_irqsave(&d->lock);

    d->plugged++;
    spin_unlock_irqrestore(&d->lock, flags);
}

void block_unplug(struct block_device *d)
{
    unsigned long flags = spin_lock_irqsave(&d->lock);
    uint64_t t0 = bench_cycles();

    if (d->plugged && --d->plugged == 0 && d->kick_owed) {
        d->kick_owed = false;
        if (d->transport->kick)
            d->transport->kick(d);
    }
    d->stats.submit_ticks += bench_cycles() - t0;
    spin_unlock_irqrestore(&d->lock, flags);
}

void block_complete(struct block_device *d, struct block_request *r, enum block_status status)
{
    struct block_request *refused = NULL;
    unsigned long flags = spin_lock_irqsave(&d->lock);

    if (d->in_flight == 0)
        panic("block: %s completed a request it was never given", d->name);
    d->in_flight--;
    d->stats.requests++;
    dispatch_locked(d, &refused);
    spin_unlock_irqrestore(&d->lock, flags);
    r->status = status;
    if (r->done)
        r->done(r);
    end_refused(refused);
}

/* block_io's request and the sleeper it wakes. */
struct block_waiter {
    struct block_request r;
    struct spinlock lock;
    struct wait_queue wq;
    bool done;
};

static void wake_waiter(struct block_request *r)
{
    struct block_waiter *w = r->data;
    unsigned long flags = spin_lock_irqsave(&w->lock);

    w->done = true;
    wait_queue_wake_one(&w->wq);
    spin_unlock_irqrestore(&w->lock, flags);
}

enum block_status block_io(struct block_device *d, enum block_op op, uint64_t sector, void *buf,
                           uint32_t len)
{
    struct block_waiter w = {
        .r = {.op = op, .sector = sector, .buf = buf, .len = len, .done = wake_waiter}};
    unsigned long flags;

    w.r.data = &w;
    if (block_submit(d, &w.r) != BLOCK_PENDING)
        return w.r.status;
    flags = spin_lock_irqsave(&w.lock);
    while (!w.done)
        wait_queue_sleep(&w.wq, &w.lock);
    spin_unlock_irqrestore(&w.lock, flags);
    return w.r.status;
}

const char *block_status_name(enum block_status s)
{
    static const char *const names[] = {
        [BLOCK_OK] = "ok",
        [BLOCK_EIO] = "I/O error",
        [BLOCK_EROFS] = "read-only device",
        [BLOCK_ERANGE] = "past the end of the device",
        [BLOCK_ENODEV] = "device gone",
        [BLOCK_EINVAL] = "malformed request",
        [BLOCK_PENDING] = "pending",
    };

    return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown status";
}
