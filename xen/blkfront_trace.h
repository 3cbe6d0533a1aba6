/* blkfront.trace=1: the first read's trip through the ring, in the ring's
 * own bytes, for docs/io.md (tools/gen-docs quotes these lines). */
#ifndef XEN_BLKFRONT_TRACE_H
#define XEN_BLKFRONT_TRACE_H

#include <stdbool.h>

#include "xen/blkif.h"

/* The request as it sits in its ring slot, and its first segment's grant. */
void blkfront_trace_request(RING_IDX idx, const struct blkif_request *req);

/* The push that published it, and the hypercall it cost, if any. */
void blkfront_trace_push(RING_IDX old, const struct blkif_sring *sring, bool notify,
                         evtchn_port_t port);

/* Its response and the event that brought it. */
void blkfront_trace_response(RING_IDX idx, const struct blkif_response *rsp, evtchn_port_t port);

/* A grant entry as Xen sees it now. */
void blkfront_trace_grant(grant_ref_t gref, const char *when);

/* The event index the final check left for the next response. */
void blkfront_trace_rearm(const struct blkif_sring *sring);

#endif
