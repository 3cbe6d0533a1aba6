/* IPv4 (RFC 791): whole, option-less packets for our address, ICMP or
 * UDP. Anything else is dropped and counted, never reassembled. */
#include "kernel/net/checksum.h"
#include "kernel/net/layers.h"
#include "kernel/net/wire.h"

#define IP_FLAG_MF 0x2000
#define IP_FRAG_OFFSET 0x1fff
#define IP_FLAG_DF 0x4000
#define IP_TTL 64

/* Why the header at ip (avail bytes of frame after the Ethernet header)
 * cannot be taken, or NET_DROP_COUNT if it can. */
static enum net_drop ipv4_check(const uint8_t *ip, unsigned avail)
{
    unsigned ihl, total;

    if (avail < IP_HLEN || ip[0] >> 4 != 4 || (ip[0] & 0xf) < 5)
        return NET_DROP_IP_HEADER;
    ihl = (ip[0] & 0xfu) * 4;
    total = get16(ip + 2);
    if (total < ihl)
        return NET_DROP_IP_HEADER;
    if (ihl > avail || total > avail)
        return NET_DROP_IP_TRUNCATED;
    if (csum_fold(csum_add(0, ip, ihl)) != 0)
        return NET_DROP_IP_CHECKSUM;
    if (ihl != IP_HLEN)
        return NET_DROP_IP_OPTIONS;
    if (get16(ip + 6) & (IP_FLAG_MF | IP_FRAG_OFFSET))
        return NET_DROP_IP_FRAGMENT;
    if (get32(ip + 16) != net_stack.ip)
        return NET_DROP_IP_NOT_OURS;
    if (ip[9] != IP_PROTO_ICMP && ip[9] != IP_PROTO_UDP)
        return NET_DROP_IP_PROTOCOL;
    return NET_DROP_COUNT;
}

void ipv4_input(uint8_t *frame, unsigned len)
{
    uint8_t *ip = frame + ETH_HLEN;
    enum net_drop why = ipv4_check(ip, len - ETH_HLEN);
    unsigned l4_len;

    if (why != NET_DROP_COUNT) {
        net_drop(why);
        return;
    }
    if (net_tracing)
        net_trace_ip_in(frame);
    /* Bytes past the total length are the link's padding, not data. */
    l4_len = get16(ip + 2) - IP_HLEN;
    if (ip[9] == IP_PROTO_ICMP)
        icmp_input(frame, l4_len);
    else
        udp_input(frame, l4_len);
}

bool ipv4_reply(uint8_t *frame, uint8_t proto, unsigned l4_len)
{
    uint8_t *ip = frame + ETH_HLEN;
    uint32_t to = get32(ip + 12);
    uint16_t sum;

    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, (uint16_t)(IP_HLEN + l4_len));
    put16(ip + 4, net_stack.ip_id++);
    put16(ip + 6, IP_FLAG_DF);
    ip[8] = IP_TTL;
    ip[9] = proto;
    put16(ip + 10, 0);
    put32(ip + 12, net_stack.ip);
    put32(ip + 16, to);
    sum = csum_fold(csum_add(0, ip, IP_HLEN));
    put16(ip + 10, net_stack.mutant_ip_checksum ? (uint16_t)(sum ^ 0x0100) : sum);
    if (net_tracing)
        net_trace_ip_out(frame);
    return eth_reply(frame, NET_L4_OFFSET + l4_len);
}
