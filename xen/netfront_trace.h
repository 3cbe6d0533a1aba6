/* net.trace=N under Xen: a traced echo's trip through netfront's two
 * rings, in the slots' own bytes, with the grants and the event-channel
 * decisions, for docs/io.md (tools/gen-docs quotes the lines). */
#ifndef XEN_NETFRONT_TRACE_H
#define XEN_NETFRONT_TRACE_H

#include <stdbool.h>

#include "xen/grant_table.h"
#include "xen/netif.h"

/* The receive response at rsp_cons i (rsp_prod rp when the event came) and
 * the grant of the page netback copied the frame into. */
void netfront_trace_rx(RING_IDX i, RING_IDX rp, const struct netif_rx_response *rsp,
                       grant_ref_t gref, evtchn_port_t port);

/* The final check's rsp_event, then the same page posted again as the
 * request at index at, and the push's decision. */
void netfront_trace_rx_refill(const struct netif_rx_front_ring *rx, RING_IDX at, RING_IDX old,
                              bool notify);

/* The reply's transmit request in its slot, and its page's grant. */
void netfront_trace_tx(RING_IDX i, const struct netif_tx_request *req);

/* The transmit push's decision, and the hypercall it cost, if any. */
void netfront_trace_tx_push(RING_IDX old, const struct netif_tx_sring *s, bool notify,
                            evtchn_port_t port);

/* netback's transmit response for the reply (rsp_prod rp when taken). */
void netfront_trace_tx_done(RING_IDX i, RING_IDX rp, const struct netif_tx_response *rsp);

#endif
