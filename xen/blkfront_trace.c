/* blkfront.trace=1's lines (xen/blkfront_trace.h). The bytes are printed as
 * the backend reads them, then decoded, so the page can show both. */
#include "xen/blkfront_trace.h"

#include "kernel/console.h"
#include "kernel/printf.h"
#include "kernel/string.h"
#include "xen/grant_refs.h"
#include "xen/grant_table.h"

static void dump(const char *what, const void *p, size_t n)
{
    char line[3 * 32];

    ksnprint_bytes(line, sizeof(line), p, n);
    kprintf("blkfront: trace: %s: %s\n", what, line);
}

void blkfront_trace_grant(grant_ref_t gref, const char *when)
{
    grant_entry_v1_t e = gnttab_peek(gref);

    dump(when, &e, sizeof(e));
    kprintf("blkfront: trace:   = flags 0x%04x, domid %u, frame 0x%x\n", e.flags, e.domid, e.frame);
}

void blkfront_trace_request(RING_IDX idx, const struct blkif_request *req)
{
    char what[64];

    ksnprintf(what, sizeof(what), "request at req_prod_pvt %u (slot %u), its first %zu bytes", idx,
              idx % (unsigned)BLKIF_RING_SLOTS, offsetof(struct blkif_request, seg[1]));
    dump(what, req, offsetof(struct blkif_request, seg[1]));
    kprintf("blkfront: trace:   = operation %u (BLKIF_OP_READ), nr_segments %u, handle %u, id %lu, "
            "sector_number %lu, seg[0] gref %u, sectors %u-%u\n",
            req->operation, req->nr_segments, req->handle, (unsigned long)req->id,
            (unsigned long)req->sector_number, req->seg[0].gref, req->seg[0].first_sect,
            req->seg[0].last_sect);
    blkfront_trace_grant(req->seg[0].gref, "grant entry of seg[0]");
}

/* Xen ring rule, as RING_PUSH_REQUESTS_AND_CHECK_NOTIFY applies it. */
void blkfront_trace_push(RING_IDX old, const struct blkif_sring *sring, bool notify,
                         evtchn_port_t port)
{
    kprintf("blkfront: trace: push: req_prod %u -> %u, req_event %u: %s%u\n", old, sring->req_prod,
            sring->req_event,
            notify ? "HYPERVISOR_event_channel_op(EVTCHNOP_send) on port "
                   : "no hypercall, the backend did not ask; port ",
            port);
}

void blkfront_trace_response(RING_IDX idx, const struct blkif_response *rsp, evtchn_port_t port)
{
    char what[64];

    kprintf("blkfront: trace: event on port %u: rsp_prod %u\n", port, idx + 1);
    ksnprintf(what, sizeof(what), "response at rsp_cons %u (slot %u), %zu bytes", idx,
              idx % (unsigned)BLKIF_RING_SLOTS, sizeof(*rsp));
    dump(what, rsp, sizeof(*rsp));
    kprintf("blkfront: trace:   = id %lu, operation %u, status %d (BLKIF_RSP_OKAY)\n",
            (unsigned long)rsp->id, rsp->operation, rsp->status);
}

void blkfront_trace_rearm(const struct blkif_sring *sring)
{
    kprintf("blkfront: trace: final check: rsp_prod %u, rsp_event %u\n", sring->rsp_prod,
            sring->rsp_event);
}
