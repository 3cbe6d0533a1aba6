/* Xen's network-device rings (<xen/io/netif.h>, their ring from
 * <xen/io/ring.h> through xen/ring.h), and the frontend's check of one
 * receive response, pure so a host test can feed it anything a backend
 * might write. */
#ifndef XEN_NETIF_H
#define XEN_NETIF_H

#include <stddef.h>
#include <stdint.h>

#include "xen/ring.h"

#include <xen/io/netif.h>

/* One page each: netif.h's DEFINE_RING_TYPES gives the types. */
#define NETIF_RING_PAGE 4096
#define NETIF_TX_SLOTS __CONST_RING_SIZE(netif_tx, NETIF_RING_PAGE)
#define NETIF_RX_SLOTS __CONST_RING_SIZE(netif_rx, NETIF_RING_PAGE)

/* Checks the receive response at ring index i, whose buffer is the one
 * posted at i (id i % NETIF_RX_SLOTS), a page of page_size bytes. NULL
 * when it holds one whole frame of at most max_len bytes, else why not. */
const char *netif_rx_check(const struct netif_rx_response *rsp, RING_IDX i, unsigned page_size,
                           unsigned max_len);

#endif
