/* The xenstore client's hypercall side: the request goes into the ring,
 * EVTCHNOP_send tells the daemon, and the reply is polled for with a
 * bounded xen_wait (SCHEDOP_poll on the store port, which works with
 * events masked). One request at a time: a thread waits its turn, while
 * a trap or a caller with interrupts off, which may have interrupted the
 * request under way, gets an error instead of a hang. */
#include "xen/xenstore.h"

#include "kernel/compiler.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/hypercall.h"
#include "xen/xenstore_ring.h"
#include "xen/xenstore_txn.h"

#define TIMEOUT_S 10 /* the daemon answers in well under 1 s */
#define EVTCHN_PORTS (sizeof(xen_shared_info.evtchn_pending) * 8)

static struct xenstore_domain_interface *store;
static evtchn_port_t store_port;
static const char *unusable = "not set up"; /* why requests fail, or NULL */
static bool busy;
static bool watch_fired; /* a watch event was skipped since the last look */
static uint32_t req_id;
static char request[XS_MSG_MAX];
static struct xs_reply reply; /* holds the error name a request returns */

/* The ring the entry path found (xen_domain), checked by it. */
static const char *attach(void)
{
    if (!xen_domain.store)
        return unusable = xen_domain.store_problem ? xen_domain.store_problem : "no store ring";
    if (xen_domain.store_port >= EVTCHN_PORTS)
        return unusable = "the store's event channel is past the event channels";
    store = xen_domain.store;
    store_port = xen_domain.store_port;
    /* After a resume: what the old domain's daemon left unread is no
     * reply to anything of the new one's. */
    __atomic_store_n(&store->rsp_cons, __atomic_load_n(&store->rsp_prod, __ATOMIC_ACQUIRE),
                     __ATOMIC_RELEASE);
    watch_fired = false;
    unusable = NULL;
    return NULL;
}

/* Connected already: skipping the ring's reset spares another thread's
 * request under way its reply (each driver's probe calls this). */
const char *xenstore_init(void)
{
    if (!unusable && store == xen_domain.store && store_port == xen_domain.store_port)
        return NULL;
    return attach();
}

const char *xenstore_resume(void)
{
    return attach();
}

/* The daemon looks at our rings when the store's port fires. */
static void notify_daemon(void)
{
    struct evtchn_send send = {.port = store_port};

    HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
}

/* A failure that may leave half a message in a ring ends the connection:
 * the next reply could not be told from the rest of this one. */
static const char *give_up(const char *why)
{
    unusable = "unusable after an earlier failure";
    return why;
}

/* A request longer than the free space goes in pieces, as the daemon
 * reads. */
static const char *send_request(size_t len, struct xen_wait *w)
{
    for (size_t sent = 0;;) {
        sent += xs_ring_put(store, request + sent, len - sent);
        notify_daemon();
        if (sent == len)
            return NULL;
        if (!xen_wait_event(w))
            return give_up("no room in the request ring within " STRINGIFY(TIMEOUT_S) " s");
    }
}

/* The daemon's notification also tells us when it has read requests; a
 * wake-up without our reply just polls again. */
static const char *receive_reply(uint32_t type, char *buf, size_t len, struct xen_wait *w)
{
    xs_reply_init(&reply, req_id, buf, len);
    for (;;) {
        const char *err = xs_reply_take(&reply, store);
        notify_daemon(); /* space in the reply ring: a long reply may be waiting for it */
        if (reply.watch_events)
            watch_fired = true;
        if (err)
            return give_up(err);
        if (reply.done)
            return xs_reply_result(&reply, type);
        if (!xen_wait_event(w))
            return give_up("no reply within " STRINGIFY(TIMEOUT_S) " s");
    }
}

/* One request and its reply, under one time budget. */
static const char *exchange(uint32_t type, uint32_t tx_id, const char *path, const char *value,
                            char *buf, size_t len)
{
    size_t n = xs_request_build(request, type, ++req_id, tx_id, path, value);
    struct xen_wait w;
    const char *err;

    if (n == 0)
        return "request longer than XENSTORE_PAYLOAD_MAX";
    xen_wait_start(&w, store_port, TIMEOUT_S * 1000000000ull);
    err = send_request(n, &w);
    return err ? err : receive_reply(type, buf, len, &w);
}

/* The turn to send a request. Only a caller with interrupts on (a thread,
 * which the holder can be scheduled around) waits, and for no longer than
 * a request may take; atomic, as another vCPU's request is just as busy. */
static bool take_turn(void)
{
    uint64_t end;

    if (!__atomic_exchange_n(&busy, true, __ATOMIC_ACQUIRE))
        return true;
    if (!(irq_save_flags() & X86_EFLAGS_IF))
        return false;
    end = time_now_ns() + TIMEOUT_S * 1000000000ull;
    while (__atomic_exchange_n(&busy, true, __ATOMIC_ACQUIRE)) {
        if (time_now_ns() > end)
            return false;
        thread_yield();
    }
    return true;
}

/* An XS_ERROR's name is in the shared reply, which the next request
 * (another thread's, once our turn ends) overwrites: callers get a copy
 * that stays, one per name. The daemon's names are xs_wire.h's
 * xsd_errors, sixteen of them. */
static const char *keep_error(const char *err)
{
    static char names[16][XS_ERROR_NAME_MAX];

    if (err != reply.error)
        return err;
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!names[i][0])
            memcpy(names[i], err, XS_ERROR_NAME_MAX);
        if (strcmp(names[i], err) == 0)
            return names[i];
    }
    return "an XS_ERROR name past the sixteen Xen defines";
}

/* Not preempted from its turn to its reply: a thread preempted there
 * could be held across a suspend, and the resume would find the turn
 * taken (its own requests refused) and that thread waiting on the new
 * ring for a reply the old domain's daemon owed. The lifecycle's safe
 * point is between requests, as it is between spin_lock() holders. */
static const char *request_in(uint32_t type, uint32_t tx_id, const char *path, const char *value,
                              char *buf, size_t len)
{
    const char *err;

    if (unusable)
        return unusable;
    if (!take_turn())
        return "busy: a request was interrupted, or another's outlasted the wait";
    sched_preempt_disable();
    err = keep_error(exchange(type, tx_id, path, value, buf, len));
    __atomic_store_n(&busy, false, __ATOMIC_RELEASE);
    sched_preempt_enable();
    return err;
}

/* Outside any transaction. */
static const char *transact(uint32_t type, const char *path, const char *value, char *buf,
                            size_t len)
{
    return request_in(type, 0, path, value, buf, len);
}

/* xs_take_node's way to the daemon: each request on its own, as any. */
static const char *exchange_in_txn(void *ctx, uint32_t type, uint32_t tx_id, const char *path,
                                   const char *value, char *buf, size_t len)
{
    (void)ctx;
    return request_in(type, tx_id, path, value, buf, len);
}

/* Takes whatever the reply ring holds with no request in flight: only
 * watch events (or stale replies) can be there. A message is taken whole,
 * so the next exchange starts on a message boundary. */
static const char *take_events(void)
{
    struct xs_reply events;
    struct xen_wait w;

    xs_reply_init(&events, 0, NULL, 0); /* req_id 0 is never ours: everything is skipped */
    xen_wait_start(&w, store_port, TIMEOUT_S * 1000000000ull);
    while (__atomic_load_n(&store->rsp_prod, __ATOMIC_ACQUIRE) != store->rsp_cons ||
           events.got != 0) {
        const char *err = xs_reply_take(&events, store);
        notify_daemon();
        if (events.watch_events)
            watch_fired = true;
        if (err)
            return give_up(err);
        if (events.got != 0 && !xen_wait_event(&w))
            return give_up("a watch event did not arrive whole within " STRINGIFY(TIMEOUT_S) " s");
    }
    return NULL;
}

bool xenstore_watch_fired(void)
{
    bool fired;

    if (unusable || __atomic_exchange_n(&busy, true, __ATOMIC_ACQUIRE))
        return false;        /* a request under way notes events for the next look */
    sched_preempt_disable(); /* as request_in, for a message taken in pieces */
    if (take_events())
        fired = false;
    else
        fired = __atomic_exchange_n(&watch_fired, false, __ATOMIC_RELAXED);
    __atomic_store_n(&busy, false, __ATOMIC_RELEASE);
    sched_preempt_enable();
    return fired;
}

const char *xenstore_watch(const char *path, const char *token)
{
    char ok[8]; /* Xen ABI: the daemon acknowledges a watch with "OK" */

    return transact(XS_WATCH, path, token, ok, sizeof(ok));
}

const char *xenstore_read(const char *path, char *buf, size_t len)
{
    if (len == 0)
        return "no room for a value";
    return transact(XS_READ, path, NULL, buf, len);
}

const char *xenstore_write(const char *path, const char *value)
{
    char ok[8]; /* Xen ABI: the daemon acknowledges a write with "OK" */

    return transact(XS_WRITE, path, value, ok, sizeof(ok));
}

const char *xenstore_take(const char *path, char *buf, size_t len)
{
    return xs_take_node(exchange_in_txn, NULL, path, buf, len);
}

const char *xenstore_transaction_start(uint32_t *tx)
{
    return xs_transaction_start(exchange_in_txn, NULL, tx);
}

/* Xen ABI: XS_TRANSACTION_END's payload is "T" to commit, "F" to abort. */
const char *xenstore_transaction_end(uint32_t tx, bool commit)
{
    char ok[8];

    return request_in(XS_TRANSACTION_END, tx, commit ? "T" : "F", NULL, ok, sizeof(ok));
}

const char *xenstore_write_tx(uint32_t tx, const char *path, const char *value)
{
    char ok[8];

    return request_in(XS_WRITE, tx, path, value, ok, sizeof(ok));
}

const char *xenstore_directory(const char *path, char *buf, size_t len)
{
    if (len == 0)
        return "no room for a listing";
    return transact(XS_DIRECTORY, path, NULL, buf, len);
}

evtchn_port_t xenstore_port(void)
{
    return store_port;
}
