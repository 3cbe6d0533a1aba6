/* The network layer: one frame path between every network transport and
 * the IPv4 stack, the twin of drivers/block.h. A transport
 * (drivers/virtio_net.c natively, xen/netfront.c under Xen) finds its
 * device, registers it here, hands every received Ethernet frame to
 * net_receive() and sends what net_transmit() gives it. The stack
 * (kernel/net/) sees struct net_device and these functions only, whichever
 * transport carries the frames. */
#ifndef DRIVERS_NET_H
#define DRIVERS_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/spinlock.h"

#define NET_ETH_ALEN 6
#define NET_MTU 1500u
#define NET_FRAME_MAX 1514u /* an Ethernet header and NET_MTU bytes, no FCS */

/* Counters every transport keeps the same way, for the benchmarks' rows. */
struct net_stats {
    uint64_t rx_frames;     /* handed to net_receive */
    uint64_t tx_frames;     /* accepted by the transport's transmit */
    uint64_t rx_dropped;    /* the layer's receive queue was full */
    uint64_t tx_dropped;    /* the transport had no room */
    uint64_t notifications; /* times the device was told (a hypercall, an MMIO write) */
    uint64_t interrupts;    /* interrupts or upcalls taken */
    uint64_t grant_ops;     /* grant-table operations (0 natively) */
    uint64_t rx_refills;    /* receive buffers given (back) to the device */
};

struct net_device;

/* What a transport gives the layer. */
struct net_transport {
    const char *name; /* "virtio-net", "netfront" */
    /* Copies one frame (len <= NET_FRAME_MAX) into the device's transmit
     * queue; false when it has no room (the layer counts the drop). Does
     * not notify: kick does, once per batch. Called with interrupts
     * disabled and the device's tx_lock held. */
    bool (*transmit)(struct net_device *d, const void *frame, unsigned len);
    /* Tells the device about what transmit queued since the last kick;
     * may notify nothing when the device said it need not be told. Same
     * context as transmit. */
    void (*kick)(struct net_device *d);
};

struct net_device {
    const char *name; /* "eth0" */
    const struct net_transport *transport;
    void *priv; /* the transport's own state */
    uint8_t mac[NET_ETH_ALEN];
    struct net_stats stats;
    struct spinlock tx_lock; /* the layer's: serialises transmit and kick */
    unsigned tx_plugged;     /* net_tx_plug() nesting: kicks held back */
    bool tx_kick_owed;
    /* Set once by the transport when the device has gone for good (its
     * backend closed): why, as a phrase; NULL while it works. */
    const char *gone;
};

/* A transport's search for its devices, registering each it can use.
 * Runs once, in thread context with interrupts on. */
typedef void (*net_probe_fn)(void);

/* From a backend's install function: a transport this platform has. */
void net_add_probe(net_probe_fn probe);

/* The transports' probes, the twins: virtio-net over PCI natively
 * (drivers/virtio_net.c), netfront under Xen (xen/netfront.c). */
void virtio_net_probe(void);
void netfront_probe(void);

/* A transport registers its device once it can send and receive. */
void net_register(struct net_device *d);

/* The first registered device, or NULL if no transport found one; runs
 * the probes first if nothing has yet. */
struct net_device *net_first(void);

/* From the transport's completion path (interrupt or upcall context):
 * copies one received frame into the layer's queue, to be handed to the
 * stack by the network thread, so a flood costs the stack's work in
 * thread context, where the scheduler can preempt it, and never more
 * than the queue holds (the rest are dropped and counted). The transport
 * may reuse its buffer as soon as this returns. */
void net_receive(struct net_device *d, const void *frame, unsigned len);

/* net.trace=N: the first N echo requests (a ping, a datagram to the UDP
 * echo port) and their replies, each step printed, for docs/io.md. The
 * budget is read on every received frame, so off it costs one load. */
extern uint64_t net_trace_left;
/* Set by the network thread while the stack handles a traced frame: what
 * a transport is asked to transmit meanwhile is that frame's reply. */
extern bool net_tracing;

/* Takes one of the budget if the frame is an echo request; the transport's
 * next net_receive() then carries the mark to the stack. */
bool net_trace_take(const void *frame, unsigned len);

/* From a transport's receive path, before net_receive(): whether to print
 * its own steps for this frame. */
static inline bool net_trace_rx(const void *frame, unsigned len)
{
    return __builtin_expect(net_trace_left != 0, 0) && net_trace_take(frame, len);
}

/* Sends one frame: transmit, then kick unless plugged. False when the
 * transport had no room (counted in tx_dropped). Any context. */
bool net_transmit(struct net_device *d, const void *frame, unsigned len);

/* Holds back the transmit kick until the matching net_tx_unplug(), so a
 * batch of frames costs one notification. Nests. */
void net_tx_plug(struct net_device *d);
void net_tx_unplug(struct net_device *d);

#endif
