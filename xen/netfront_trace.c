/* net.trace=N's lines from netfront (xen/netfront_trace.h). The bytes are
 * printed as netback reads or wrote them, then decoded. */
#include "xen/netfront_trace.h"

#include "kernel/console.h"
#include "kernel/printf.h"

static void dump(const char *what, const void *p, size_t n)
{
    char line[3 * 16];

    ksnprint_bytes(line, sizeof(line), p, n);
    kprintf("netfront: trace: %s: %s\n", what, line);
}

static void grant(const char *whose, grant_ref_t gref)
{
    grant_entry_v1_t e = gnttab_peek(gref);
    char what[48];

    ksnprintf(what, sizeof(what), "grant entry %u (%s)", gref, whose);
    dump(what, &e, sizeof(e));
    kprintf("netfront: trace:   = flags 0x%04x (permit_access%s), domid %u, frame 0x%x\n", e.flags,
            e.flags & GTF_readonly ? ", readonly" : ", writable", e.domid, e.frame);
}

void netfront_trace_rx(RING_IDX i, RING_IDX rp, const struct netif_rx_response *rsp,
                       grant_ref_t gref, evtchn_port_t port)
{
    char what[48];

    kprintf("netfront: trace: event on port %u: rx rsp_prod %u, rsp_cons %u\n", port, rp, i);
    ksnprintf(what, sizeof(what), "rx response at %u (slot %u)", i, i % (unsigned)NETIF_RX_SLOTS);
    dump(what, rsp, sizeof(*rsp));
    kprintf("netfront: trace:   = id %u, offset %u, flags 0x%x%s, status %d (the frame's "
            "bytes)\n",
            rsp->id, rsp->offset, rsp->flags,
            rsp->flags & NETRXF_data_validated ? " data_validated" : "", rsp->status);
    grant("the receive page", gref);
}

/* Xen ring rule, as RING_FINAL_CHECK_FOR_RESPONSES and
 * RING_PUSH_REQUESTS_AND_CHECK_NOTIFY apply it. */
void netfront_trace_rx_refill(const struct netif_rx_front_ring *rx, RING_IDX at, RING_IDX old,
                              bool notify)
{
    const struct netif_rx_request *req = RING_GET_REQUEST(rx, at);
    char what[48];

    kprintf("netfront: trace: rx final check: rsp_prod %u, rsp_event %u\n", rx->sring->rsp_prod,
            rx->sring->rsp_event);
    ksnprintf(what, sizeof(what), "rx request at %u (slot %u)", at, at % (unsigned)NETIF_RX_SLOTS);
    dump(what, req, sizeof(*req));
    kprintf("netfront: trace:   = id %u, gref %u (the same page)\n", req->id, req->gref);
    kprintf("netfront: trace: rx push: req_prod %u -> %u, req_event %u: %s\n", old,
            rx->sring->req_prod, rx->sring->req_event,
            notify ? "notify" : "no notify, netback did not ask");
}

void netfront_trace_tx(RING_IDX i, const struct netif_tx_request *req)
{
    char what[48];

    ksnprintf(what, sizeof(what), "tx request at req_prod_pvt %u (slot %u)", i,
              i % (unsigned)NETIF_TX_SLOTS);
    dump(what, req, sizeof(*req));
    kprintf("netfront: trace:   = gref %u, offset %u, flags 0x%x, id %u, size %u\n", req->gref,
            req->offset, req->flags, req->id, req->size);
    grant("the transmit page", req->gref);
}

void netfront_trace_tx_push(RING_IDX old, const struct netif_tx_sring *s, bool notify,
                            evtchn_port_t port)
{
    kprintf("netfront: trace: tx push: req_prod %u -> %u, req_event %u: %s%u\n", old, s->req_prod,
            s->req_event,
            notify ? "HYPERVISOR_event_channel_op(EVTCHNOP_send) on port "
                   : "no hypercall, netback did not ask; port ",
            port);
}

void netfront_trace_tx_done(RING_IDX i, RING_IDX rp, const struct netif_tx_response *rsp)
{
    char what[48];

    kprintf("netfront: trace: tx rsp_prod %u\n", rp);
    ksnprintf(what, sizeof(what), "tx response at %u (slot %u)", i, i % (unsigned)NETIF_TX_SLOTS);
    dump(what, rsp, sizeof(*rsp));
    kprintf("netfront: trace:   = id %u, status %d (NETIF_RSP_OKAY)\n", rsp->id, rsp->status);
}
