/* net.trace=N's lines from the stack (kernel/net/trace.h): each header's
 * fields as the layer read or wrote them, checksums in the frame's byte
 * order as they appear on the wire. */
#include "kernel/net/trace.h"

#include "kernel/console.h"
#include "kernel/printf.h"
#include "kernel/net/stack.h"
#include "kernel/net/wire.h"

#define ICMP_ECHO_REQUEST 8

bool net_trace_is_echo(const uint8_t *f, unsigned len)
{
    if (len < NET_L4_OFFSET + 4 || get16(f + 12) != ETH_TYPE_IPV4)
        return false;
    if (f[ETH_HLEN + 9] == IP_PROTO_ICMP)
        return f[NET_L4_OFFSET] == ICMP_ECHO_REQUEST;
    return f[ETH_HLEN + 9] == IP_PROTO_UDP && get16(f + NET_L4_OFFSET + 2) == NET_UDP_ECHO_PORT;
}

static void mac(char *out, const uint8_t *m)
{
    ksnprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void ip4(char *out, const uint8_t *a)
{
    ksnprintf(out, 16, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

static void eth(const char *dir, const uint8_t *f, unsigned len)
{
    char dst[18], src[18];
    uint16_t type = get16(f + 12);

    mac(dst, f);
    mac(src, f + NET_ETH_ALEN);
    kprintf("net: trace: eth %s: dst %s, src %s, type 0x%04x (%s), %u bytes\n", dir, dst, src, type,
            type == ETH_TYPE_IPV4 ? "IPv4" : "ARP", len);
}

void net_trace_eth_in(const uint8_t *frame, unsigned len)
{
    eth("in", frame, len);
}

void net_trace_eth_out(const uint8_t *frame, unsigned len)
{
    eth("out", frame, len);
}

/* RFC 1071: a header with its checksum in place sums to 0xffff, which
 * folds to 0; the line says which the layer found or made. */
static void ip(const char *dir, const char *sum_says, const uint8_t *frame)
{
    const uint8_t *h = frame + ETH_HLEN;
    char src[16], dst[16];

    ip4(src, h + 12);
    ip4(dst, h + 16);
    kprintf("net: trace: ipv4 %s: %s -> %s, total length %u, id %u, flags 0x%x, ttl %u, "
            "protocol %u (%s), header checksum 0x%04x %s\n",
            dir, src, dst, get16(h + 2), get16(h + 4), get16(h + 6) >> 13, h[8], h[9],
            h[9] == IP_PROTO_ICMP ? "ICMP" : "UDP", get16(h + 10), sum_says);
}

void net_trace_ip_in(const uint8_t *frame)
{
    ip("in", "verified (the header sums to 0xffff)", frame);
}

void net_trace_ip_out(const uint8_t *frame)
{
    ip("out", "computed over the new header", frame);
}

static void icmp(const char *dir, const char *sum_says, const uint8_t *frame, unsigned l4_len)
{
    const uint8_t *m = frame + NET_L4_OFFSET;

    kprintf("net: trace: icmp %s: type %u (%s), code %u, id 0x%04x, sequence %u, %u bytes of "
            "data, checksum 0x%04x %s\n",
            dir, m[0], m[0] == ICMP_ECHO_REQUEST ? "echo request" : "echo reply", m[1],
            get16(m + 4), get16(m + 6), l4_len - ICMP_HLEN, get16(m + 2), sum_says);
}

void net_trace_icmp_in(const uint8_t *frame, unsigned l4_len)
{
    icmp("in", "verified", frame, l4_len);
}

void net_trace_icmp_out(const uint8_t *frame, unsigned l4_len)
{
    icmp("out", "computed with the type changed", frame, l4_len);
}

void net_trace_udp_in(const uint8_t *frame, unsigned len)
{
    const uint8_t *u = frame + NET_L4_OFFSET;

    kprintf("net: trace: udp in: port %u -> %u, length %u (%u bytes of data), checksum "
            "0x%04x %s\n",
            get16(u), get16(u + 2), len, len - UDP_HLEN, get16(u + 6),
            get16(u + 6) ? "verified over the pseudo-header" : "absent (0)");
}

/* A kept sum is RFC 1071's commutativity: the same 16-bit words, swapped. */
void net_trace_udp_out(const uint8_t *frame, bool kept)
{
    const uint8_t *u = frame + NET_L4_OFFSET;

    kprintf("net: trace: udp out: port %u -> %u, length %u, checksum 0x%04x %s\n", get16(u),
            get16(u + 2), get16(u + 4), get16(u + 6),
            kept ? "kept (the ports and addresses swapped, the same words summed)"
                 : "computed over the pseudo-header");
}

void net_trace_drop(const char *reason)
{
    kprintf("net: trace: dropped: %s\n", reason);
}
