/* The interface's state and counters, shared by every layer. */
#include "kernel/net/stack.h"

#include "kernel/net/layers.h"
#include "kernel/printf.h"
#include "kernel/string.h"

struct net_stack net_stack;

static const char *const drop_names[NET_DROP_COUNT] = {
    [NET_DROP_NOT_UP] = "not-up",
    [NET_DROP_ETH_SHORT] = "eth-short",
    [NET_DROP_ETH_NOT_OURS] = "eth-not-ours",
    [NET_DROP_ETH_TYPE] = "eth-type",
    [NET_DROP_ARP_MALFORMED] = "arp-malformed",
    [NET_DROP_ARP_NOT_OURS] = "arp-not-ours",
    [NET_DROP_IP_HEADER] = "ip-header",
    [NET_DROP_IP_TRUNCATED] = "ip-truncated",
    [NET_DROP_IP_CHECKSUM] = "ip-checksum",
    [NET_DROP_IP_OPTIONS] = "ip-options",
    [NET_DROP_IP_FRAGMENT] = "ip-fragment",
    [NET_DROP_IP_NOT_OURS] = "ip-not-ours",
    [NET_DROP_IP_PROTOCOL] = "ip-protocol",
    [NET_DROP_ICMP_SHORT] = "icmp-short",
    [NET_DROP_ICMP_CHECKSUM] = "icmp-checksum",
    [NET_DROP_ICMP_TYPE] = "icmp-type",
    [NET_DROP_UDP_LENGTH] = "udp-length",
    [NET_DROP_UDP_CHECKSUM] = "udp-checksum",
    [NET_DROP_UDP_PORT] = "udp-port",
    [NET_DROP_UDP_REQUEST] = "udp-request",
    [NET_DROP_TX_FULL] = "tx-full",
};

const char *net_drop_name(enum net_drop r)
{
    return (unsigned)r < NET_DROP_COUNT ? drop_names[r] : "unknown";
}

void net_drop(enum net_drop r)
{
    net_stack.c.dropped[r]++;
    if (net_tracing)
        net_trace_drop(net_drop_name(r));
}

void net_stack_up(struct net_device *d, uint32_t ip, uint32_t gw)
{
    net_stack.dev = d;
    net_stack.ip = ip;
    net_stack.gw = gw;
    memset(&net_stack.c, 0, sizeof(net_stack.c));
    memset(&net_stack.report, 0, sizeof(net_stack.report));
    net_stack.ended = false;
    arp_cache_clear();
    __atomic_store_n(&net_stack.up, true, __ATOMIC_RELEASE);
}

bool net_stack_send(uint8_t *frame, unsigned len)
{
    if (!net_transmit(net_stack.dev, frame, len)) {
        net_drop(NET_DROP_TX_FULL);
        return false;
    }
    /* The workload's thread sends the announcements, the network thread the rest. */
    __atomic_fetch_add(&net_stack.c.tx_frames, 1, __ATOMIC_RELAXED);
    return true;
}

size_t net_counters_format(char *buf, size_t size)
{
    size_t n = (size_t)ksnprintf(
        buf, size, "net: rx %lu frames, tx %lu, dropped:", (unsigned long)net_stack.c.rx_frames,
        (unsigned long)net_stack.c.tx_frames);
    bool any = false;

    for (unsigned r = 0; r < NET_DROP_COUNT; r++) {
        if (!net_stack.c.dropped[r] || n >= size)
            continue;
        n += (size_t)ksnprintf(buf + n, size - n, "%s %s %lu", any ? "," : "", drop_names[r],
                               (unsigned long)net_stack.c.dropped[r]);
        any = true;
    }
    /* The layer's own drops: frames that never reached the stack. */
    if (net_stack.dev && net_stack.dev->stats.rx_dropped && n < size) {
        n += (size_t)ksnprintf(buf + n, size - n, "%s queue-full %lu", any ? "," : "",
                               (unsigned long)net_stack.dev->stats.rx_dropped);
        any = true;
    }
    if (!any && n < size)
        n += (size_t)ksnprintf(buf + n, size - n, " none");
    return n < size ? n : size - 1;
}

bool net_parse_ip4(const char *s, uint32_t *ip)
{
    uint32_t v = 0;

    for (int part = 0; part < 4; part++) {
        unsigned n = 0, digits = 0;

        for (; *s >= '0' && *s <= '9' && digits < 4; s++, digits++)
            n = n * 10 + (unsigned)(*s - '0');
        if (digits == 0 || digits > 3 || n > 255)
            return false;
        v = v << 8 | n;
        if (part < 3 && *s++ != '.')
            return false;
    }
    if (*s)
        return false;
    *ip = v;
    return true;
}
