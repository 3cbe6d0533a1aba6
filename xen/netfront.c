/* netfront: the network layer's transport under Xen, the twin of
 * virtio_net. Two rings of one page each shared with the backend (Linux
 * dom0's netback) through grants, and one event channel for both. Receive
 * buffers are pages granted to the backend once per connection and posted
 * ahead of time: netback copies each frame into one (request-rx-copy), and
 * the slot goes back to it as soon as the frame is handed up. Transmit
 * copies each frame into a page of a pool granted once per connection.
 * Both sides avoid notifications: we tell the backend only when it asked
 * (req_event), and it tells us only when we asked (rsp_event, set by the
 * final check). After a resume in a new domain it connects to the new
 * backend, grants its buffers again and announces our address. A
 * watchdog closes our end when the backend leaves Connected. */
#include "xen/netif.h"
#include "xen/netfront_trace.h"

#include "drivers/net.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/lifecycle.h"
#include "kernel/net/layers.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/frame_alloc.h"
#include "mm/pgtable.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/grant_table.h"
#include "xen/grant_refs.h"
#include "xen/hypercall.h"
#include "xen/xenbus.h"
#include "xen/xenstore.h"

#define RX_BUFS NETIF_RX_SLOTS /* a buffer per slot: the ring stays full */
#define TX_BUFS 64             /* frames in flight at most */
#define WATCH_NS 1000000000ull /* how often the watchdog asks where the backend is */

static uint64_t timeout_s = 10;
OPTION_UINT(timeout_s, "netfront.timeout", 1, 600, "seconds to wait for the backend at each step");
static bool avoid_notify = true;
OPTION_BOOL(avoid_notify, "netfront.avoid_notify",
            "notify the backend only when it asked (req_event); off: after every push");
/* A negative control for the resume: the new backend is given no
 * receive buffers, so nothing reaches us after the first resume. */
static const char *const mutant_choices[] = {"none", "no-regrant", 0};
static int mutant;
OPTION_ENUM(mutant, "netfront.mutant", mutant_choices,
            "test only: grant and post no receive buffers after a resume (no-regrant)");

static struct netfront {
    struct net_device dev;
    struct xenbus_device xb;
    struct netif_tx_front_ring tx;
    struct netif_rx_front_ring rx;
    evtchn_port_t port;
    struct spinlock tx_lock; /* the transmit ring and its ids */
    struct spinlock rx_lock; /* the receive ring */
    void *tx_page[TX_BUFS];
    grant_ref_t tx_ref[TX_BUFS];
    uint16_t tx_free[TX_BUFS];
    unsigned tx_nfree;
    bool tx_busy[TX_BUFS];
    void *rx_page[RX_BUFS];
    grant_ref_t rx_ref[RX_BUFS];
    bool rx_posted; /* this connection's backend has our buffers */
    bool suspended; /* from a suspend until the reconnect */
    unsigned epoch; /* suspends so far: the watchdog's answers are of one epoch */
    bool gone;      /* the backend left Connected: nothing is sent or taken */
    uint64_t malformed;
    char name[8];
    struct {
        bool push, tx_done; /* the traced reply's push and response to come */
        unsigned tx_id;
    } trace;
} front;

static void notify_backend(void)
{
    struct evtchn_send send = {.port = front.port};

    HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
    front.dev.stats.notifications++;
}

static void report_malformed(const char *ring, const char *why, unsigned id)
{
    if (front.malformed++ == 0)
        kprintf("netfront: malformed %s response from the backend: %s (id %u); counted and "
                "dropped\n",
                ring, why, id);
}

/* Takes every transmit response: its page is free again. Called with
 * tx_lock held. */
static void tx_reap_locked(void)
{
    int more;

    do {
        RING_IDX i, rp = front.tx.sring->rsp_prod;
        xen_rmb(); /* Xen ring rule: read rsp_prod before the responses it covers */
        for (i = front.tx.rsp_cons; i != rp; i++) {
            struct netif_tx_response rsp = *RING_GET_RESPONSE(&front.tx, i);
            if (rsp.status == NETIF_RSP_NULL)
                continue; /* netif.h: the slot of an extra, none of ours */
            if (rsp.id >= TX_BUFS || !front.tx_busy[rsp.id]) {
                report_malformed("transmit", "no frame of that id in flight", rsp.id);
                continue;
            }
            if (front.trace.tx_done && rsp.id == front.trace.tx_id) {
                netfront_trace_tx_done(i, rp, RING_GET_RESPONSE(&front.tx, i));
                front.trace.tx_done = false;
            }
            front.tx_busy[rsp.id] = false;
            front.tx_free[front.tx_nfree++] = rsp.id;
        }
        front.tx.rsp_cons = i;
        RING_FINAL_CHECK_FOR_RESPONSES(&front.tx, more);
    } while (more);
}

/* A copy into a page granted once, not a grant of the caller's buffer:
 * the layer reuses its buffer as soon as we return, and a grant per frame
 * would cost two grant-table writes and the backend a map or copy of a
 * page the frame shares with whatever else lies beside it. */
static bool netfront_transmit(struct net_device *d, const void *frame, unsigned len)
{
    struct netif_tx_request *req;
    unsigned id;

    (void)d;
    spin_lock(&front.tx_lock);
    if (front.suspended || front.gone || len > NET_FRAME_MAX) {
        spin_unlock(&front.tx_lock);
        return false;
    }
    if (front.tx_nfree == 0)
        tx_reap_locked();
    if (front.tx_nfree == 0 || RING_FULL(&front.tx)) {
        spin_unlock(&front.tx_lock);
        return false;
    }
    id = front.tx_free[--front.tx_nfree];
    front.tx_busy[id] = true;
    memcpy(front.tx_page[id], frame, len);
    req = RING_GET_REQUEST(&front.tx, front.tx.req_prod_pvt);
    *req = (struct netif_tx_request){.gref = front.tx_ref[id],
                                     .offset = 0,
                                     .flags = 0,
                                     .id = (uint16_t)id,
                                     .size = (uint16_t)len};
    if (net_tracing) {
        netfront_trace_tx(front.tx.req_prod_pvt, req);
        front.trace.push = front.trace.tx_done = true;
        front.trace.tx_id = id;
    }
    front.tx.req_prod_pvt++;
    spin_unlock(&front.tx_lock);
    return true;
}

/* Xen ring rule: publish req_prod, then notify only if the backend's
 * req_event lies among the requests just pushed. */
static void netfront_kick(struct net_device *d)
{
    int notify;
    RING_IDX old;

    (void)d;
    spin_lock(&front.tx_lock);
    if (front.suspended || front.gone) {
        spin_unlock(&front.tx_lock);
        return;
    }
    old = front.tx.sring->req_prod;
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front.tx, notify);
    if (front.trace.push) {
        netfront_trace_tx_push(old, front.tx.sring, notify || !avoid_notify, front.port);
        front.trace.push = false;
    }
    spin_unlock(&front.tx_lock);
    if (notify || !avoid_notify)
        notify_backend();
}

/* Posts the buffer of every free slot: the one at ring index i is buffer
 * i % RX_BUFS, so a slot's buffer is free once its response is taken.
 * Returns whether the backend must be told. Called with rx_lock held. */
static int rx_refill_locked(void)
{
    int notify = 0;

    if (!front.rx_posted)
        return 0;
    while (front.rx.req_prod_pvt - front.rx.rsp_cons < RX_BUFS) {
        RING_IDX i = front.rx.req_prod_pvt++;
        struct netif_rx_request *req = RING_GET_REQUEST(&front.rx, i);
        req->id = (uint16_t)(i % RX_BUFS);
        req->gref = front.rx_ref[i % RX_BUFS];
        front.dev.stats.rx_refills++;
    }
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front.rx, notify);
    return notify;
}

/* Hands every received frame up and gives its buffer back; the final
 * check (Xen ring rule: set rsp_event, then look once more) leaves no
 * response without its event. */
static void rx_take(void)
{
    int more, notify;
    unsigned long flags = spin_lock_irqsave(&front.rx_lock);
    bool traced = false;
    RING_IDX traced_at = 0, old;

    do {
        RING_IDX i, rp = front.rx.sring->rsp_prod;
        xen_rmb(); /* Xen ring rule: read rsp_prod before the responses it covers */
        for (i = front.rx.rsp_cons; i != rp; i++) {
            struct netif_rx_response rsp = *RING_GET_RESPONSE(&front.rx, i);
            const char *why = netif_rx_check(&rsp, i, PAGE_SIZE, NET_FRAME_MAX);
            uint8_t *frame;
            if (why && rsp.status != NETIF_RSP_DROPPED)
                report_malformed("receive", why, rsp.id);
            if (why)
                continue;
            frame = (uint8_t *)front.rx_page[i % RX_BUFS] + rsp.offset;
            if (net_trace_rx(frame, (unsigned)rsp.status)) {
                netfront_trace_rx(i, rp, RING_GET_RESPONSE(&front.rx, i), front.rx_ref[i % RX_BUFS],
                                  front.port);
                traced = true;
                traced_at = i + RX_BUFS; /* where its page is posted again */
            }
            net_receive(&front.dev, frame, (unsigned)rsp.status);
        }
        front.rx.rsp_cons = i;
        RING_FINAL_CHECK_FOR_RESPONSES(&front.rx, more);
    } while (more);
    old = front.rx.sring->req_prod;
    notify = rx_refill_locked();
    if (traced && front.rx_posted)
        netfront_trace_rx_refill(&front.rx, traced_at, old, notify || !avoid_notify);
    spin_unlock_irqrestore(&front.rx_lock, flags);
    if (notify || (!avoid_notify && front.rx_posted))
        notify_backend();
}

/* Both rings' responses; also from the resume, in thread context. */
static void take_responses(void)
{
    unsigned long flags;

    if (__atomic_load_n(&front.suspended, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&front.gone, __ATOMIC_ACQUIRE))
        return;
    flags = spin_lock_irqsave(&front.tx_lock);
    tx_reap_locked();
    spin_unlock_irqrestore(&front.tx_lock, flags);
    rx_take();
}

static void netfront_event(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data;
    front.dev.stats.interrupts++;
    take_responses();
}

/* Closes our end of a backend that left Connected in the epoch the
 * watchdog asked in: an answer that came back across a suspend speaks of
 * the old domain's backend, and the resume reconnects instead. Our
 * Closed lets the toolstack finish (xl network-detach waits for it). */
static void backend_gone(const char *what, unsigned epoch)
{
    static char why[80];
    unsigned long flags;
    bool same;

    flags = spin_lock_irqsave(&front.tx_lock);
    spin_lock(&front.rx_lock);
    same = !front.suspended && front.epoch == epoch;
    if (same)
        __atomic_store_n(&front.gone, true, __ATOMIC_RELEASE);
    spin_unlock(&front.rx_lock);
    spin_unlock_irqrestore(&front.tx_lock, flags);
    if (!same)
        return;
    if (front.xb.state == XenbusStateConnected)
        xenbus_switch(&front.xb, XenbusStateClosing);
    if (front.xb.state != XenbusStateClosed)
        xenbus_switch(&front.xb, XenbusStateClosed);
    kprintf("netfront: backend %s %s: %s closed, nothing sent or received from now on\n",
            front.xb.backend, what, front.dev.name);
    ksnprintf(why, sizeof(why), "backend %s", what);
    __atomic_store_n(&front.dev.gone, (const char *)why, __ATOMIC_RELEASE);
}

/* Nothing but the backend's state says it has gone: netback sends no
 * response to a frontend it no longer serves, and xl network-detach sets
 * it Closing and waits for us. So once every WATCH_NS the watchdog asks
 * xenstore. EACCES: the node is not ours to read (an old domain's
 * backend); other errors (a busy daemon) may pass; a missing state reads
 * Unknown, which is not Connected either. */
static void watchdog(void *arg)
{
    static char what[64];

    (void)arg;
    while (!__atomic_load_n(&front.gone, __ATOMIC_ACQUIRE)) {
        enum xenbus_state back;
        const char *err;
        unsigned epoch;
        sleep_until(time_now_ns() + WATCH_NS);
        if (__atomic_load_n(&front.suspended, __ATOMIC_ACQUIRE))
            continue;
        epoch = __atomic_load_n(&front.epoch, __ATOMIC_ACQUIRE);
        err = xenbus_backend_state(&front.xb, &back);
        if (err && strcmp(err, "EACCES") == 0)
            backend_gone("is out of reach (EACCES)", epoch);
        else if (!err && back != XenbusStateConnected) {
            ksnprintf(what, sizeof(what), "went %s", xenbus_state_name(back));
            backend_gone(what, epoch);
        }
    }
}

static const struct net_transport netfront_transport = {
    .name = "netfront", .transmit = netfront_transmit, .kick = netfront_kick};

/* A page for each buffer, made once; a reconnect reuses them. */
static const char *make_pages(void)
{
    for (unsigned i = 0; i < TX_BUFS + RX_BUFS; i++) {
        void **page = i < TX_BUFS ? &front.tx_page[i] : &front.rx_page[i - TX_BUFS];
        uint64_t pa;
        if (*page)
            continue;
        pa = frame_alloc();
        if (!pa)
            return "no frame for a buffer";
        *page = phys_to_virt(pa);
    }
    return NULL;
}

/* This connection's grants of the buffers: the transmit pool read-only,
 * the receive buffers writable for netback's copy. The refs of a previous
 * domain are not ended: its table is gone. */
static const char *grant_buffers(bool rx)
{
    for (unsigned i = 0; i < TX_BUFS; i++) {
        front.tx_ref[i] = gnttab_grant(front.xb.backend_id, xen_frame_of(front.tx_page[i]), true);
        front.dev.stats.grant_ops++;
        if (front.tx_ref[i] == GRANT_REF_NONE)
            return "no grant reference for a transmit buffer";
    }
    for (unsigned i = 0; rx && i < RX_BUFS; i++) {
        front.rx_ref[i] = gnttab_grant(front.xb.backend_id, xen_frame_of(front.rx_page[i]), false);
        front.dev.stats.grant_ops++;
        if (front.rx_ref[i] == GRANT_REF_NONE)
            return "no grant reference for a receive buffer";
    }
    return NULL;
}

/* Both rings, empty, every transmit id free, and our port for the
 * backend's events; a reconnect reuses the rings' pages. */
static const char *make_rings(void)
{
    struct netif_tx_sring *txs = front.tx.sring;
    struct netif_rx_sring *rxs = front.rx.sring;

    if (!txs || !rxs) {
        uint64_t a = frame_alloc(), b = frame_alloc();
        if (!a || !b)
            return "no frame for the rings";
        txs = phys_to_virt(a);
        rxs = phys_to_virt(b);
    }
    memset(txs, 0, PAGE_SIZE);
    memset(rxs, 0, PAGE_SIZE);
    SHARED_RING_INIT(txs);
    SHARED_RING_INIT(rxs);
    FRONT_RING_INIT(&front.tx, txs, NETIF_RING_PAGE);
    FRONT_RING_INIT(&front.rx, rxs, NETIF_RING_PAGE);
    front.tx_nfree = 0;
    for (unsigned id = TX_BUFS; id-- > 0;) {
        front.tx_busy[id] = false;
        front.tx_free[front.tx_nfree++] = (uint16_t)id;
    }
    front.port = xen_evtchn_alloc_unbound(front.xb.backend_id, netfront_event, NULL);
    return NULL;
}

/* Our half of the handshake's data, in one transaction: the rings'
 * grants, the port, and what netback requires of a frontend: copied
 * receives, our notifications of new receive buffers, and full checksums
 * both ways (no offload: we neither fill nor trust partial ones). */
static const char *publish(void)
{
    char tx_ref[12], rx_ref[12], port[12];
    grant_ref_t t = gnttab_grant(front.xb.backend_id, xen_frame_of(front.tx.sring), false);
    grant_ref_t r = gnttab_grant(front.xb.backend_id, xen_frame_of(front.rx.sring), false);
    const char *keys[] = {"tx-ring-ref",     "rx-ring-ref",       "event-channel",
                          "request-rx-copy", "feature-rx-notify", "feature-no-csum-offload",
                          "feature-sg",      "feature-gso-tcpv4"};
    const char *values[] = {tx_ref, rx_ref, port, "1", "1", "1", "0", "0"};
    const char *err;

    front.dev.stats.grant_ops += 2;
    if (t == GRANT_REF_NONE || r == GRANT_REF_NONE)
        return "no grant reference for the rings";
    ksnprintf(tx_ref, sizeof(tx_ref), "%u", t);
    ksnprintf(rx_ref, sizeof(rx_ref), "%u", r);
    ksnprintf(port, sizeof(port), "%u", front.port);
    err = xenbus_publish(&front.xb, keys, values, sizeof(keys) / sizeof(keys[0]));
    if (!err)
        err = xenbus_switch(&front.xb, XenbusStateInitialised);
    return err;
}

/* The MAC the toolstack gave the vif, "xx:xx:xx:xx:xx:xx" in our node. */
static const char *read_mac(void)
{
    char path[64], mac[24];
    const char *err;
    const char *s = mac;

    ksnprintf(path, sizeof(path), "%s/mac", front.xb.node);
    err = xenstore_read(path, mac, sizeof(mac));
    if (err)
        return err;
    for (unsigned i = 0; i < NET_ETH_ALEN; i++) {
        unsigned v = 0;
        for (unsigned k = 0; k < 2; k++, s++) {
            char c = *s;
            unsigned digit = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                             : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                    : 16u;
            if (digit == 16)
                return "the mac key is not six hex pairs";
            v = v * 16 + digit;
        }
        if (*s != (i + 1 < NET_ETH_ALEN ? ':' : '\0'))
            return "the mac key is not six hex pairs";
        s++;
        front.dev.mac[i] = (uint8_t)v;
    }
    return NULL;
}

/* Waits for the backend's state; NULL once it is in want. */
static const char *await(enum xenbus_state want)
{
    static char why[96];
    enum xenbus_state back;
    const char *err = xenbus_wait_backend(&front.xb, timeout_s * 1000000000ull, &back);

    if (err || back == want)
        return err;
    ksnprintf(why, sizeof(why), "the backend went %s", xenbus_state_name(back));
    return why;
}

/* Initialising -> (backend InitWait) -> Initialised -> Connected ->
 * (backend Connected): netback maps our rings only once we say Connected.
 * Each wait is bounded by netfront.timeout. rx: grant and post the
 * receive buffers (the mutant's resume does not). */
static const char *connect(bool rx)
{
    const char *err = gnttab_init();

    if (!err)
        err = make_pages();
    if (!err)
        err = make_rings();
    if (!err)
        err = grant_buffers(rx);
    if (!err) {
        unsigned long flags = spin_lock_irqsave(&front.rx_lock);
        front.rx_posted = rx;
        rx_refill_locked(); /* seen by the backend when it maps the ring */
        spin_unlock_irqrestore(&front.rx_lock, flags);
        err = await(XenbusStateInitWait);
    }
    if (!err)
        err = publish();
    if (!err)
        err = xenbus_switch(&front.xb, XenbusStateConnected);
    if (!err)
        err = await(XenbusStateConnected);
    return err;
}

/* At the safe point: from here transmits are refused and events ignored. */
static void netfront_suspend(void)
{
    spin_lock(&front.tx_lock);
    spin_lock(&front.rx_lock);
    __atomic_store_n(&front.suspended, true, __ATOMIC_RELEASE);
    __atomic_fetch_add(&front.epoch, 1, __ATOMIC_RELEASE);
    spin_unlock(&front.rx_lock);
    spin_unlock(&front.tx_lock);
}

/* The new domain's vif under the same id: a new backend, new rings and
 * grants; the frames in flight at the suspend are lost with the old one.
 * Then a gratuitous ARP, so the bridge and the peers learn where we are. */
static void netfront_resume(bool new_domain)
{
    char id[16];
    const char *err = NULL;
    bool found = false;
    unsigned lost = TX_BUFS - front.tx_nfree;

    if (new_domain) {
        ksnprintf(id, sizeof(id), "%s", front.xb.node + strlen("device/vif/"));
        err = xenbus_find("vif", id, &front.xb, &found);
        if (!err && !found)
            err = "no vif of that id in the new domain";
        if (!err)
            err = connect(mutant == 0);
        if (err) {
            static char why[256];
            ksnprintf(why, sizeof(why), "netfront: device/vif/%s after the resume: %s", id, err);
            kernel_exit(EXIT_FAILURE, why);
        }
    }
    __atomic_store_n(&front.suspended, false, __ATOMIC_RELEASE);
    if (!new_domain) {
        take_responses(); /* what came while we looked away */
        return;
    }
    kprintf("netfront: %s reconnected to %s: port %u, %s, frames in flight at the suspend "
            "lost: %u\n",
            front.xb.node, front.xb.backend, front.port,
            mutant ? "no receive buffers granted (netfront.mutant=no-regrant)"
                   : "receive buffers granted again",
            lost);
    xen_evtchn_unmask(front.port);
    notify_backend();
    arp_announce();
}

static struct lifecycle_hook hook = {
    .name = "netfront", .suspend = netfront_suspend, .resume = netfront_resume};

/* Registers the first vif xenstore lists, if any; a vif whose backend
 * does not connect ends the run with one line saying where it stopped. */
void netfront_probe(void)
{
    const char *err = xenstore_init();
    bool found = false;

    if (!err)
        err = xenbus_find("vif", NULL, &front.xb, &found);
    if (err || !found) {
        if (err)
            kprintf("netfront: no network: xenstore: %s\n", err);
        else
            kprintf("netfront: no network: no vif in xenstore\n");
        return;
    }
    err = read_mac();
    if (!err)
        err = connect(true);
    if (err) {
        static char why[256];
        ksnprintf(why, sizeof(why), "netfront: %s: %s", front.xb.node, err);
        kernel_exit(EXIT_FAILURE, why);
    }
    ksnprintf(front.name, sizeof(front.name), "eth0");
    front.dev.name = front.name;
    front.dev.transport = &netfront_transport;
    front.dev.priv = &front;
    kprintf("netfront: %s connected to %s (domain %u): port %u, mac "
            "%02x:%02x:%02x:%02x:%02x:%02x, %u receive buffers posted\n",
            front.xb.node, front.xb.backend, front.xb.backend_id, front.port, front.dev.mac[0],
            front.dev.mac[1], front.dev.mac[2], front.dev.mac[3], front.dev.mac[4],
            front.dev.mac[5], (unsigned)RX_BUFS);
    xen_evtchn_unmask(front.port);
    notify_backend();
    net_register(&front.dev);
    lifecycle_register(&hook);
    thread_create("netfront", watchdog, NULL);
}
