/* blkfront: the block layer's transport under Xen, the twin of virtio_blk.
 * One page of ring shared with the backend (Linux dom0's blkback) through
 * a grant, an event channel each way, and the data pages granted per
 * request, or, with persistent grants, copied through a pool of pages
 * granted once and kept mapped by the backend. Both sides avoid
 * notifications: we tell the backend only when it asked (req_event), and
 * it tells us only when we asked (rsp_event, set by the final check).
 * After a resume in a new domain it connects to the new backend and sends
 * the requests it held again, in the order they first went. */
#include "xen/blkif.h"

#include "bench/loop.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/lifecycle.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/frame_alloc.h"
#include "mm/pgtable.h"
#include "xen/backend.h"
#include "xen/blkfront_trace.h"
#include "xen/events.h"
#include "xen/grant_table.h"
#include "xen/grant_refs.h"
#include "xen/hypercall.h"
#include "xen/xenbus.h"
#include "xen/xenstore.h"

#define SLOTS BLKIF_RING_SLOTS
#define SEGS BLKIF_MAX_SEGMENTS_PER_REQUEST /* in the ring's own slot */
#define MAX_SEGS 64 /* with indirect requests: 256 KiB, one page of segments */
#define SEGS_PER_PAGE (PAGE_SIZE / sizeof(struct blkif_request_segment))
_Static_assert(MAX_SEGS <= SEGS_PER_PAGE, "one indirect page holds a request's segments");
#define WATCH_NS 200000000ull  /* how often the watchdog looks */
#define STALL_NS 1000000000ull /* requests in flight this long without a response */
#define FAULT_CLOSE_AFTER 64   /* requests before blkfront.fault=close closes */

static char vbd_id[16];
OPTION_STRING(vbd_id, "blkfront.vbd",
              "the vbd to use (device/vbd/<id>); the first listed if unset");
static uint64_t timeout_s = 10;
OPTION_UINT(timeout_s, "blkfront.timeout", 1, 600,
            "seconds to wait for the backend at each step, and for any response to requests");
static bool persistent_wanted = true;
OPTION_BOOL(persistent_wanted, "blkfront.persistent",
            "use persistent grants when the backend offers them (feature-persistent)");
static uint64_t trace_sector = UINT64_MAX;
OPTION_UINT(trace_sector, "blkfront.trace", 0, UINT64_MAX - 1,
            "trace the first read of this sector: its request, grant, push, event and response "
            "(docs/io.md)");
static bool indirect_wanted = true;
OPTION_BOOL(indirect_wanted, "blkfront.indirect",
            "send requests of more than 11 pages as indirect requests when the backend offers "
            "them (feature-max-indirect-segments)");
static bool avoid_notify = true;
OPTION_BOOL(avoid_notify, "blkfront.avoid_notify",
            "notify the backend only when it asked (req_event); off: after every push");
/* Faults for the tests: a frontend that never publishes its ring (the
 * backend then never connects), one response's status made bad, and a
 * connection closed after 64 requests (the backend leaves Connected). */
enum { FAULT_NONE, FAULT_SILENT, FAULT_BAD_STATUS, FAULT_CLOSE };
static const char *const fault_choices[] = {"none", "silent", "badstatus", "close", 0};
static int fault = FAULT_NONE;
OPTION_ENUM(fault, "blkfront.fault", fault_choices,
            "test faults: never publish the ring, corrupt one response's status, or close the "
            "connection mid-run");

/* A negative control for the resume: the requests in flight at a
 * suspend are never sent to the new backend, nor completed. */
static const char *const mutant_choices[] = {"none", "no-requeue", 0};
static int mutant;
OPTION_ENUM(mutant, "blkfront.mutant", mutant_choices,
            "test only: forget the requests in flight across a resume (no-requeue)");

struct shadow {
    struct block_request *r;
    uint64_t seq; /* submit order, kept when sent again */
    bool in_ring; /* in this connection's ring */
    unsigned nr_segs;
    grant_ref_t gref[MAX_SEGS + 1]; /* per-request grants, an indirect list's last */
};

struct done {
    struct block_request *r;
    enum block_status status;
};

static struct blkfront {
    struct block_device dev;
    struct xenbus_device xb;
    struct blkif_front_ring ring;
    evtchn_port_t port;
    struct spinlock lock; /* the ring, the ids and the pool */
    struct blkif_slot slots[SLOTS];
    struct shadow shadow[SLOTS];
    uint32_t free_ids[SLOTS];
    unsigned nr_free;
    bool persistent;
    unsigned max_segs;                     /* per request: SEGS, or more with indirect requests */
    void *pool[SLOTS][MAX_SEGS];           /* persistent: made and granted at first use */
    grant_ref_t pool_ref[SLOTS][MAX_SEGS]; /* 0 (a reserved entry): not granted in this domain */
    void *seg_page[SLOTS];                 /* an indirect request's segments, made at first use */
    grant_ref_t seg_page_ref[SLOTS];       /* persistent: as pool_ref */
    uint64_t seq;
    bool suspended; /* from a suspend until the reconnect: requests wait in shadow */
    uint64_t malformed;
    uint64_t progress_ns; /* the last response, or the submit that found the ring idle */
    bool gone;            /* the backend left Connected: every request fails */
    bool fault_done;
    enum { TRACE_WAIT, TRACE_SUBMITTED, TRACE_PUSHED, TRACE_ANSWERED, TRACE_OVER } trace;
    unsigned trace_id;
    char name[8];
} front;

/* A grant the backend still maps after answering cannot be ended or
 * reused: said, and left. */
static void end_grants(struct shadow *s)
{
    for (unsigned i = 0; i < s->nr_segs; i++) {
        if (!gnttab_end(s->gref[i]))
            kprintf("blkfront: grant %u still mapped by the backend after its response: "
                    "leaked\n",
                    s->gref[i]);
        front.dev.stats.grant_ops++;
    }
    s->nr_segs = 0;
}

/* The pool copy is what persistent grants cost per request; a request is
 * whole sectors, so it goes 8 bytes a move (and stays a loop: GCC would
 * make it a call to memcpy). */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void
copy_sectors(void *dst, const void *src, uint32_t bytes)
{
    uint64_t *d = dst;
    const uint64_t *from = src;

    for (uint32_t i = 0; i < bytes / sizeof(uint64_t); i++)
        d[i] = from[i];
}

/* The pool page for (id, seg), granted to the backend once and for good. */
static bool pool_page(unsigned id, unsigned seg)
{
    uint64_t pa;

    if (front.pool_ref[id][seg])
        return true;
    if (!front.pool[id][seg]) {
        pa = frame_alloc();
        if (!pa)
            return false;
        front.pool[id][seg] = phys_to_virt(pa);
    }
    front.pool_ref[id][seg] =
        gnttab_grant(front.xb.backend_id, xen_frame_of(front.pool[id][seg]), false);
    front.dev.stats.grant_ops++;
    if (front.pool_ref[id][seg] == GRANT_REF_NONE) {
        front.pool_ref[id][seg] = 0;
        return false;
    }
    return true;
}

/* One segment: the request's own page granted for this request, or the
 * pool's page, the data copied in for a write. */
static bool fill_segment(unsigned id, unsigned seg, const struct block_request *r,
                         struct blkif_request_segment *out)
{
    uint32_t off = seg * (uint32_t)PAGE_SIZE;
    uint32_t bytes = r->len - off < PAGE_SIZE ? r->len - off : (uint32_t)PAGE_SIZE;
    uint8_t *data = (uint8_t *)r->buf + off;

    out->first_sect = 0;
    out->last_sect = (uint8_t)(bytes / BLOCK_SECTOR_SIZE - 1);
    if (front.persistent) {
        if (!pool_page(id, seg))
            return false;
        if (r->op == BLOCK_WRITE)
            copy_sectors(front.pool[id][seg], data, bytes);
        out->gref = front.pool_ref[id][seg];
        return true;
    }
    out->gref = gnttab_grant(front.xb.backend_id, xen_frame_of(data), r->op == BLOCK_WRITE);
    front.dev.stats.grant_ops++;
    front.shadow[id].gref[seg] = out->gref;
    return out->gref != GRANT_REF_NONE;
}

static bool fill_segments(unsigned id, const struct block_request *r,
                          struct blkif_request_segment *segs, unsigned n)
{
    for (unsigned seg = 0; seg < n; seg++) {
        if (!fill_segment(id, seg, r, &segs[seg]))
            return false;
        front.shadow[id].nr_segs = front.persistent ? 0 : seg + 1;
    }
    return true;
}

/* Slot id's page for an indirect request's segment list, made at first
 * use, and its grant once the segments are in it: kept with persistent
 * grants as the pool's pages are, else this request's, ended with its
 * data's. blkback maps every grant writable once persistent grants are
 * agreed, so only a per-request one is read-only. */
static grant_ref_t seg_list_grant(unsigned id)
{
    struct shadow *s = &front.shadow[id];
    grant_ref_t ref;

    if (front.persistent && front.seg_page_ref[id])
        return front.seg_page_ref[id];
    ref = gnttab_grant(front.xb.backend_id, xen_frame_of(front.seg_page[id]), !front.persistent);
    front.dev.stats.grant_ops++;
    if (ref == GRANT_REF_NONE)
        return ref;
    if (front.persistent)
        front.seg_page_ref[id] = ref;
    else
        s->gref[s->nr_segs++] = ref;
    return ref;
}

/* io/blkif.h's BLKIF_OP_INDIRECT: the segments go in a granted page and
 * the ring slot names it; the response echoes indirect_op. */
static bool queue_indirect(unsigned id, const struct block_request *r,
                           struct blkif_request_indirect *req, uint8_t op, unsigned nr_segs)
{
    grant_ref_t ref;

    if (nr_segs > front.max_segs)
        return false;
    if (!front.seg_page[id]) {
        uint64_t pa = frame_alloc();
        if (!pa)
            return false;
        front.seg_page[id] = phys_to_virt(pa);
    }
    if (!fill_segments(id, r, front.seg_page[id], nr_segs))
        return false;
    ref = seg_list_grant(id);
    if (ref == GRANT_REF_NONE)
        return false;
    *req = (struct blkif_request_indirect){.operation = BLKIF_OP_INDIRECT,
                                           .indirect_op = op,
                                           .nr_segments = (uint16_t)nr_segs,
                                           .id = id,
                                           .sector_number = r->sector,
                                           .indirect_grefs = {ref}};
    front.dev.stats.indirect++;
    return true;
}

/* Builds slot id's request in the ring's next private slot; the backend
 * sees it at the next push (kick). False when a grant failed, or the
 * request has more segments than this backend takes. */
static bool queue_slot(unsigned id)
{
    struct block_request *r = front.shadow[id].r;
    struct blkif_request *req = RING_GET_REQUEST(&front.ring, front.ring.req_prod_pvt);
    unsigned nr_segs =
        r->op == BLOCK_FLUSH ? 0 : (r->len + (uint32_t)PAGE_SIZE - 1) / (uint32_t)PAGE_SIZE;
    uint8_t op = r->op == BLOCK_READ    ? BLKIF_OP_READ
                 : r->op == BLOCK_WRITE ? BLKIF_OP_WRITE
                                        : BLKIF_OP_FLUSH_DISKCACHE;

    if (nr_segs > SEGS) {
        if (!queue_indirect(id, r, (struct blkif_request_indirect *)req, op, nr_segs))
            return false;
    } else {
        req->operation = op;
        req->nr_segments = (uint8_t)nr_segs;
        req->handle = 0;
        req->id = id;
        req->sector_number = r->op == BLOCK_FLUSH ? 0 : r->sector;
        if (!fill_segments(id, r, req->seg, nr_segs))
            return false;
    }
    front.slots[id] = (struct blkif_slot){.busy = 1, .operation = op};
    front.shadow[id].in_ring = true;
    if (front.trace == TRACE_WAIT && r->op == BLOCK_READ && r->sector == trace_sector &&
        nr_segs <= SEGS) {
        blkfront_trace_request(front.ring.req_prod_pvt, req);
        front.trace = TRACE_SUBMITTED;
        front.trace_id = id;
    }
    front.ring.req_prod_pvt++;
    return true;
}

/* Takes a slot for r; while suspended the request waits there for the
 * reconnect, which sends it. */
static enum block_status submit_locked(struct block_request *r)
{
    unsigned id;

    if ((uintptr_t)r->buf & (PAGE_SIZE - 1))
        return BLOCK_EINVAL; /* a segment is a page's sectors: block.h's page-aligned buf */
    if (front.gone)
        return BLOCK_ENODEV;
    if (front.nr_free == 0 || RING_FULL(&front.ring))
        return BLOCK_EIO; /* the layer keeps to our queue depth: never */
    if (front.nr_free == SLOTS)
        front.progress_ns = time_now_ns();
    id = front.free_ids[--front.nr_free];
    front.shadow[id] = (struct shadow){.r = r, .seq = front.seq++};
    front.slots[id] = (struct blkif_slot){.busy = 1};
    if (front.suspended || queue_slot(id))
        return BLOCK_PENDING;
    end_grants(&front.shadow[id]);
    front.slots[id].busy = 0;
    front.free_ids[front.nr_free++] = id;
    return BLOCK_EIO;
}

static enum block_status blkfront_submit(struct block_device *d, struct block_request *r)
{
    enum block_status s;

    (void)d;
    spin_lock(&front.lock);
    s = submit_locked(r);
    spin_unlock(&front.lock);
    return s;
}

static void notify_backend(void)
{
    struct evtchn_send send = {.port = front.port};

    HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
    front.dev.stats.notifications++;
}

/* Xen ring rule: publish req_prod, then notify only if the backend's
 * req_event lies among the requests just pushed. */
static void blkfront_kick(struct block_device *d)
{
    int notify;
    RING_IDX old = front.ring.sring->req_prod;

    if (fault == FAULT_CLOSE && d->stats.requests >= FAULT_CLOSE_AFTER)
        return; /* held in the ring until the watchdog has closed the connection */
    spin_lock(&front.lock);
    if (front.suspended) {
        spin_unlock(&front.lock);
        return;
    }
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front.ring, notify);
    if (front.trace == TRACE_SUBMITTED) {
        blkfront_trace_push(old, front.ring.sring, notify, front.port);
        front.trace = TRACE_PUSHED;
    }
    spin_unlock(&front.lock);
    if (notify || !avoid_notify)
        notify_backend();
}

/* Ends the slot's request: grants back, a read's data out of the pool. */
static struct block_request *finish_slot(unsigned id, enum block_status status)
{
    struct shadow *s = &front.shadow[id];
    struct block_request *r = s->r;

    if (front.persistent && r->op == BLOCK_READ && status == BLOCK_OK)
        for (uint32_t off = 0, seg = 0; off < r->len; off += (uint32_t)PAGE_SIZE, seg++)
            copy_sectors((uint8_t *)r->buf + off, front.pool[id][seg],
                         r->len - off < PAGE_SIZE ? r->len - off : (uint32_t)PAGE_SIZE);
    end_grants(s);
    s->r = NULL;
    s->in_ring = false;
    front.slots[id].busy = 0;
    front.free_ids[front.nr_free++] = id;
    return r;
}

static void report_malformed(const char *why, const struct blkif_response *rsp)
{
    if (front.malformed++ == 0)
        kprintf("blkfront: malformed response from the backend: %s (id %lu, operation %u, "
                "status %d); counted, and it fails its request if it names one\n",
                why, (unsigned long)rsp->id, rsp->operation, rsp->status);
}

/* The traced read's response, and its grant before it is ended; returns
 * that grant, or GRANT_REF_NONE for a persistent one, which stays. */
static grant_ref_t trace_response(RING_IDX i, const struct blkif_response *rsp)
{
    grant_ref_t gref = front.persistent ? GRANT_REF_NONE : front.shadow[rsp->id].gref[0];

    blkfront_trace_response(i, rsp, front.port);
    if (gref != GRANT_REF_NONE)
        blkfront_trace_grant(gref, "grant entry before gnttab_end");
    front.trace = TRACE_ANSWERED;
    return gref;
}

/* Takes every response up to rsp_prod, a copy each (the backend may write
 * the slot meanwhile), into done[]; returns how many. */
static unsigned take_responses(struct done *done)
{
    unsigned n = 0;
    RING_IDX i, rp = front.ring.sring->rsp_prod;

    xen_rmb(); /* Xen ring rule: read rsp_prod before the responses it covers */
    for (i = front.ring.rsp_cons; i != rp; i++) {
        struct blkif_response rsp = *RING_GET_RESPONSE(&front.ring, i);
        enum block_status status;
        const char *why;
        grant_ref_t traced;
        int id;

        if (fault == FAULT_BAD_STATUS && !front.fault_done) {
            rsp.status = 42;
            front.fault_done = true;
        }
        why = blkif_response_check(&rsp, front.slots, SLOTS, &id, &status);
        if (why)
            report_malformed(why, &rsp);
        traced = front.trace == TRACE_PUSHED && id == (int)front.trace_id ? trace_response(i, &rsp)
                                                                          : GRANT_REF_NONE;
        if (id >= 0 && n < SLOTS)
            done[n++] = (struct done){finish_slot((unsigned)id, status), status};
        if (traced != GRANT_REF_NONE)
            blkfront_trace_grant(traced, "grant entry after gnttab_end");
    }
    front.ring.rsp_cons = i;
    return n;
}

/* Xen ring rule: after the last response, set rsp_event and look once
 * more, so a response that came meanwhile is not left without its event.
 * The requests the completions let the layer hand on go out with one kick. */
static void blkfront_event(evtchn_port_t port, struct trap_frame *f, void *data)
{
    struct done done[SLOTS];
    uint64_t t0 = bench_cycles();
    int more;

    (void)port, (void)f, (void)data;
    front.dev.stats.interrupts++;
    block_plug(&front.dev);
    do {
        unsigned n;
        spin_lock(&front.lock);
        n = take_responses(done);
        if (n)
            front.progress_ns = time_now_ns();
        RING_FINAL_CHECK_FOR_RESPONSES(&front.ring, more);
        spin_unlock(&front.lock);
        for (unsigned i = 0; i < n; i++)
            block_complete(&front.dev, done[i].r, done[i].status);
    } while (more);
    if (front.trace == TRACE_ANSWERED) {
        blkfront_trace_rearm(front.ring.sring);
        front.trace = TRACE_OVER;
    }
    block_unplug(&front.dev);
    front.dev.stats.complete_ticks += bench_cycles() - t0;
}

/* Fails every request in flight: the backend will answer none of them.
 * Closed first: a failure wakes its owner, whose exit may want xenstore
 * with interrupts off and so cannot wait for our turn; a request sent
 * meanwhile is in flight by the sweep, and fails with the rest. */
static void fail_in_flight(const char *what, const char *detail)
{
    struct done done[SLOTS];
    unsigned n = 0;
    unsigned long flags;

    if (front.xb.state == XenbusStateConnected)
        xenbus_switch(&front.xb, XenbusStateClosing);
    if (front.xb.state != XenbusStateClosed)
        xenbus_switch(&front.xb, XenbusStateClosed);
    flags = spin_lock_irqsave(&front.lock);
    front.gone = true;
    for (unsigned id = 0; id < SLOTS; id++)
        if (front.slots[id].busy)
            done[n++] = (struct done){finish_slot(id, BLOCK_ENODEV), BLOCK_ENODEV};
    spin_unlock_irqrestore(&front.lock, flags);
    kprintf("blkfront: backend %s %s %s with %u requests in flight: they fail, as every "
            "request from now on\n",
            front.xb.backend, what, detail, n);
    for (unsigned i = 0; i < n; i++)
        block_complete(&front.dev, done[i].r, done[i].status);
}

/* Responses are all the backend sends: one that leaves Connected (a
 * crash, a close) stops answering, and one the toolstack set Closing (xl
 * block-detach) answers on while it waits for us to close. So while
 * requests are in flight the watchdog asks xenstore where the backend is
 * once every STALL_NS, and whenever they have waited that long. EACCES:
 * the node is not ours to read, as an old domain's backend is not after
 * a resume; other errors (a busy client) may pass. A backend still
 * Connected that answers nothing for blkfront.timeout has lost the
 * requests (or was never sent them): they fail too. */
static void watchdog(void *arg)
{
    uint64_t looked = 0;

    (void)arg;
    while (!front.gone) {
        enum xenbus_state back;
        const char *err;
        sleep_until(time_now_ns() + WATCH_NS);
        if (fault == FAULT_CLOSE && !front.fault_done &&
            front.dev.stats.requests >= FAULT_CLOSE_AFTER) {
            front.fault_done = true;
            kprintf("blkfront: blkfront.fault=close: the connection closed once %u requests "
                    "completed, the next held back\n",
                    FAULT_CLOSE_AFTER);
            xenbus_switch(&front.xb, XenbusStateClosing);
            xenbus_switch(&front.xb, XenbusStateClosed);
        }
        if (__atomic_load_n(&front.suspended, __ATOMIC_ACQUIRE) ||
            __atomic_load_n(&front.nr_free, __ATOMIC_RELAXED) == SLOTS ||
            (time_now_ns() - __atomic_load_n(&front.progress_ns, __ATOMIC_RELAXED) < STALL_NS &&
             time_now_ns() - looked < STALL_NS))
            continue;
        looked = time_now_ns();
        err = xenbus_backend_state(&front.xb, &back);
        if (err && strcmp(err, "EACCES") == 0)
            fail_in_flight("is out of reach", "(EACCES)");
        else if (!err && back != XenbusStateConnected)
            fail_in_flight("went", xenbus_state_name(back));
        else if (!err && time_now_ns() - __atomic_load_n(&front.progress_ns, __ATOMIC_RELAXED) >
                             timeout_s * 1000000000ull) {
            char detail[32];
            ksnprintf(detail, sizeof(detail), "%lu s (blkfront.timeout)", timeout_s);
            fail_in_flight("answered nothing for", detail);
        }
    }
}

static const struct block_transport blkfront_transport = {
    .name = "blkfront", .submit = blkfront_submit, .kick = blkfront_kick};

/* The shared ring, empty, granted to the backend at publish, and our
 * port for its events; a reconnect reuses the ring's page. */
static const char *make_ring(void)
{
    struct blkif_sring *sring = front.ring.sring;

    if (!sring) {
        uint64_t pa = frame_alloc();
        if (!pa)
            return "no frame for the ring";
        sring = phys_to_virt(pa);
    }
    memset(sring, 0, PAGE_SIZE);
    SHARED_RING_INIT(sring);
    FRONT_RING_INIT(&front.ring, sring, BLKIF_RING_PAGE);
    front.port = xen_evtchn_alloc_unbound(front.xb.backend_id, blkfront_event, NULL);
    return NULL;
}

/* Our half of the handshake's data, in one transaction: the ring's grant,
 * the port, the ABI, and whether we reuse grants. */
static const char *publish(void)
{
    char ring_ref[12], port[12];
    grant_ref_t ref = gnttab_grant(front.xb.backend_id, xen_frame_of(front.ring.sring), false);
    const char *keys[] = {"ring-ref", "event-channel", "protocol", "feature-persistent"};
    const char *values[] = {ring_ref, port, XEN_IO_PROTO_ABI_NATIVE, persistent_wanted ? "1" : "0"};
    const char *err;

    if (ref == GRANT_REF_NONE)
        return "no grant reference for the ring";
    ksnprintf(ring_ref, sizeof(ring_ref), "%u", ref);
    ksnprintf(port, sizeof(port), "%u", front.port);
    err = fault == FAULT_SILENT ? NULL : xenbus_publish(&front.xb, keys, values, 4);
    if (err)
        return err;
    if (fault == FAULT_SILENT) {
        kprintf("blkfront: blkfront.fault=silent: the ring is not published\n");
        front.xb.state = XenbusStateInitialised;
        return NULL;
    }
    return xenbus_switch(&front.xb, XenbusStateInitialised);
}

/* Waits for the backend to ask for what want names. */
static const char *await(enum xenbus_front_action want)
{
    static char why[96];
    enum xenbus_state back;
    const char *err = xenbus_wait_backend(&front.xb, timeout_s * 1000000000ull, &back);

    if (err || xenbus_front_action(front.xb.state, back) == want)
        return err;
    ksnprintf(why, sizeof(why), "the backend went %s", xenbus_state_name(back));
    return why;
}

/* The disk as the backend describes it once Connected, and what it
 * agreed to: blkback writes feature-persistent at Connected, 1 only if
 * we asked for it too. */
static const char *read_disk(void)
{
    uint64_t sectors, sector_size, info, flush, persistent, indirect;
    const char *err = xenbus_backend_number(&front.xb, "sectors", 0, &sectors);

    if (!err)
        err = xenbus_backend_number(&front.xb, "sector-size", BLOCK_SECTOR_SIZE, &sector_size);
    if (!err)
        err = xenbus_backend_number(&front.xb, "info", 0, &info);
    if (!err)
        err = xenbus_backend_number(&front.xb, "feature-flush-cache", 0, &flush);
    if (!err)
        err = xenbus_backend_number(&front.xb, "feature-persistent", 0, &persistent);
    if (!err)
        err = xenbus_backend_number(&front.xb, "feature-max-indirect-segments", 0, &indirect);
    if (err)
        return err;
    front.persistent = persistent_wanted && persistent;
    front.max_segs = !indirect_wanted || indirect <= SEGS ? SEGS
                     : indirect < MAX_SEGS                ? (unsigned)indirect
                                                          : MAX_SEGS;
    if (sector_size != BLOCK_SECTOR_SIZE)
        return "the backend's sector-size is not 512";
    front.dev.sectors = sectors;
    front.dev.read_only = info & VDISK_READONLY;
    front.dev.can_flush = flush != 0;
    return NULL;
}

/* Initialising -> (backend InitWait) -> Initialised -> (backend
 * Connected) -> Connected, each wait bounded by blkfront.timeout. */
static const char *connect(void)
{
    const char *err = gnttab_init();

    if (!err)
        err = make_ring();
    if (!err)
        err = await(XENBUS_PUBLISH);
    if (!err)
        err = publish();
    if (!err)
        err = await(XENBUS_CONNECT);
    if (!err)
        err = read_disk();
    if (!err)
        err = xenbus_switch(&front.xb, XenbusStateConnected);
    return err;
}

/* Linux's name for the vbd: Xen's io/blkif.h numbers xvd disks 202 << 8
 * | disk << 4; any other numbering just gets "xvd". */
static void disk_name(void)
{
    const char *id = front.xb.node + strlen("device/vbd/");
    unsigned n = 0;

    for (; *id >= '0' && *id <= '9'; id++)
        n = n * 10 + (unsigned)(*id - '0');
    if (n >> 8 == 202 && ((n & 0xff) >> 4) < 26)
        ksnprintf(front.name, sizeof(front.name), "xvd%c", 'a' + (int)((n & 0xff) >> 4));
    else
        ksnprintf(front.name, sizeof(front.name), "xvd");
}

/* At the safe point: from here requests wait in their slots. */
static void blkfront_suspend(void)
{
    spin_lock(&front.lock);
    __atomic_store_n(&front.suspended, true, __ATOMIC_RELEASE);
    spin_unlock(&front.lock);
}

/* Every request held, old grants forgotten (the new table has none),
 * into the new ring in submit order, as the layer first sent them. */
static unsigned requeue_locked(void)
{
    unsigned order[SLOTS], n = 0;

    memset(front.pool_ref, 0, sizeof(front.pool_ref));
    memset(front.seg_page_ref, 0, sizeof(front.seg_page_ref));
    for (unsigned id = 0; id < SLOTS; id++) {
        if (!front.slots[id].busy)
            continue;
        front.shadow[id].nr_segs = 0;
        front.shadow[id].in_ring = false;
        unsigned i = n++;
        for (; i > 0 && front.shadow[order[i - 1]].seq > front.shadow[id].seq; i--)
            order[i] = order[i - 1];
        order[i] = id;
    }
    for (unsigned i = 0; i < n; i++)
        if (!queue_slot(order[i]))
            kernel_exit(EXIT_FAILURE, "blkfront: a request sent again after the resume could "
                                      "not be queued: no grant, or more segments than the new "
                                      "backend takes");
    return n;
}

/* A cancelled suspend keeps the ring and backend: what waited is pushed. */
static void requeue_waiting(void)
{
    for (unsigned id = 0; id < SLOTS; id++)
        if (front.slots[id].busy && !front.shadow[id].in_ring && !queue_slot(id))
            kernel_exit(EXIT_FAILURE, "blkfront: no grant for a request held over a "
                                      "cancelled suspend");
}

/* The new domain's vbd under the same id: its backend is new (another
 * path, Initialising, then InitWait), and nothing is written to the old
 * one's node, which is not ours to write. */
static void blkfront_resume(bool new_domain)
{
    char id[16];
    const char *err = NULL;
    bool found = false;
    unsigned n = 0;
    unsigned long flags;
    int notify;

    if (new_domain) {
        ksnprintf(id, sizeof(id), "%s", front.xb.node + strlen("device/vbd/"));
        err = xenbus_find("vbd", id, &front.xb, &found);
        if (!err && !found)
            err = "no vbd of that id in the new domain";
        if (!err)
            err = connect();
        if (err) {
            static char why[256];
            ksnprintf(why, sizeof(why), "blkfront: device/vbd/%s after the resume: %s", id, err);
            kernel_exit(EXIT_FAILURE, why);
        }
    }
    flags = spin_lock_irqsave(&front.lock);
    if (new_domain && mutant == 1)
        kprintf("blkfront: %u requests in flight forgotten (blkfront.mutant=no-requeue)\n",
                (unsigned)(SLOTS - front.nr_free));
    else if (new_domain)
        n = requeue_locked();
    else
        requeue_waiting();
    front.progress_ns = time_now_ns();
    __atomic_store_n(&front.suspended, false, __ATOMIC_RELEASE);
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front.ring, notify);
    spin_unlock_irqrestore(&front.lock, flags);
    if (new_domain) {
        kprintf("blkfront: %s reconnected to %s: port %u, persistent grants %s, %u requests "
                "in flight sent again\n",
                front.xb.node, front.xb.backend, front.port, front.persistent ? "on" : "off", n);
        xen_evtchn_unmask(front.port);
    }
    if (notify || new_domain)
        notify_backend();
}

static struct lifecycle_hook hook = {
    .name = "blkfront", .suspend = blkfront_suspend, .resume = blkfront_resume};

/* Registers the vbd xenstore lists, if any; a vbd whose backend does not
 * connect ends the run with one line saying where it stopped. */
void blkfront_probe(void)
{
    const char *err = xenstore_init();
    bool found = false;

    if (!err)
        err = xenbus_find("vbd", vbd_id[0] ? vbd_id : NULL, &front.xb, &found);
    if (err || !found) {
        if (err)
            kprintf("blkfront: no disk: xenstore: %s\n", err);
        else
            kprintf("blkfront: no disk: no vbd%s%s in xenstore\n", vbd_id[0] ? " " : "", vbd_id);
        return;
    }
    for (unsigned id = SLOTS; id-- > 0;)
        front.free_ids[front.nr_free++] = id;
    err = connect();
    if (err) {
        static char why[256];
        ksnprintf(why, sizeof(why), "blkfront: %s: %s", front.xb.node, err);
        kernel_exit(EXIT_FAILURE, why);
    }
    disk_name();
    front.dev.name = front.name;
    front.dev.transport = &blkfront_transport;
    front.dev.priv = &front;
    front.dev.max_request = front.max_segs * (uint32_t)PAGE_SIZE;
    front.dev.queue_depth = SLOTS;
    kprintf("blkfront: %s connected to %s (domain %u): port %u, persistent grants %s, "
            "flush %s\n",
            front.xb.node, front.xb.backend, front.xb.backend_id, front.port,
            front.persistent ? "on" : "off", front.dev.can_flush ? "yes" : "no");
    kprintf("blkfront: requests of up to %u KiB: %u segments%s\n", front.max_segs * 4,
            front.max_segs,
            front.max_segs > SEGS ? ", indirect beyond 11"
            : indirect_wanted     ? " (the backend offers no indirect requests)"
                                  : " (blkfront.indirect=off)");
    xen_evtchn_unmask(front.port);
    block_register(&front.dev);
    lifecycle_register(&hook);
    thread_create("blkfront", watchdog, NULL);
}
