/* Ethernet: frames for our MAC or the broadcast address, IPv4 or ARP. */
#include "bench/loop.h"
#include "kernel/net/layers.h"
#include "kernel/net/wire.h"
#include "kernel/string.h"

static const uint8_t broadcast[NET_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

/* One frame through the layers, its reply sent, if any. */
static void eth_input(struct net_device *d, uint8_t *frame, unsigned len)
{
    if (!__atomic_load_n(&net_stack.up, __ATOMIC_ACQUIRE) || d != net_stack.dev) {
        net_drop(NET_DROP_NOT_UP);
        return;
    }
    if (len < ETH_HLEN) {
        net_drop(NET_DROP_ETH_SHORT);
        return;
    }
    if (memcmp(frame, d->mac, NET_ETH_ALEN) && memcmp(frame, broadcast, NET_ETH_ALEN)) {
        net_drop(NET_DROP_ETH_NOT_OURS);
        return;
    }
    if (net_tracing)
        net_trace_eth_in(frame, len);
    switch (get16(frame + 12)) {
    case ETH_TYPE_IPV4:
        ipv4_input(frame, len);
        break;
    case ETH_TYPE_ARP:
        arp_input(frame, len);
        break;
    default:
        net_drop(NET_DROP_ETH_TYPE);
    }
}

/* One frame in NET_TIMED_EVERY is timed: under Xen a domU's rdtsc is
 * emulated, thousands of instructions, more than the stack's own work. */
void net_stack_input(struct net_device *d, uint8_t *frame, unsigned len)
{
    uint64_t t0;

    if (++net_stack.c.rx_frames % NET_TIMED_EVERY) {
        eth_input(d, frame, len);
        return;
    }
    t0 = bench_cycles();
    eth_input(d, frame, len);
    net_stack.c.ticks += bench_cycles() - t0;
    net_stack.c.timed++;
}

void eth_header(uint8_t *frame, const uint8_t *dst, uint16_t type)
{
    memcpy(frame, dst ? dst : broadcast, NET_ETH_ALEN);
    memcpy(frame + NET_ETH_ALEN, net_stack.dev->mac, NET_ETH_ALEN);
    put16(frame + 12, type);
}

bool eth_reply(uint8_t *frame, unsigned len)
{
    uint8_t sender[NET_ETH_ALEN];

    memcpy(sender, frame + NET_ETH_ALEN, NET_ETH_ALEN);
    eth_header(frame, sender, get16(frame + 12));
    if (net_tracing)
        net_trace_eth_out(frame, len);
    return net_stack_send(frame, len);
}
