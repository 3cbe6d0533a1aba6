#include "xen/netif.h"

/* Without feature-sg and GSO negotiated a frame is one slot: more_data or
 * extra_info would mean slots we never asked for (netif.h's rx flags). */
const char *netif_rx_check(const struct netif_rx_response *rsp, RING_IDX i, unsigned page_size,
                           unsigned max_len)
{
    if (rsp->id != (uint16_t)(i % NETIF_RX_SLOTS))
        return "the id is not the slot's";
    if (rsp->status < 0)
        return rsp->status == NETIF_RSP_DROPPED ? "the backend dropped the frame"
                                                : "the backend reports an error";
    if (rsp->status == 0)
        return "an empty frame";
    if (rsp->flags & (NETRXF_more_data | NETRXF_extra_info))
        return "more slots than one (sg or extras were not negotiated)";
    if ((unsigned)rsp->offset + (unsigned)rsp->status > page_size)
        return "the frame runs past its page";
    if ((unsigned)rsp->status > max_len)
        return "longer than an Ethernet frame";
    return NULL;
}
