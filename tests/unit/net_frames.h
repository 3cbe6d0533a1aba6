/* Frames a peer would send, for the stack's unit tests and fuzz target:
 * built field by field, checksums computed unless a test asks for them
 * wrong. Each builder returns the frame's length. */
#ifndef TESTS_UNIT_NET_FRAMES_H
#define TESTS_UNIT_NET_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drivers/net.h"
#include "kernel/net/checksum.h"
#include "kernel/net/wire.h"

#define PEER_IP 0x0a000202u  /* 10.0.2.2 */
#define GUEST_IP 0x0a00020fu /* 10.0.2.15 */

static const uint8_t guest_mac[NET_ETH_ALEN] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
static const uint8_t peer_mac[NET_ETH_ALEN] = {0x52, 0x55, 0x0a, 0x00, 0x02, 0x02};
static const uint8_t bcast_mac[NET_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static inline void frame_eth(uint8_t *f, const uint8_t *dst, uint16_t type)
{
    memcpy(f, dst, NET_ETH_ALEN);
    memcpy(f + 6, peer_mac, NET_ETH_ALEN);
    put16(f + 12, type);
}

static inline unsigned frame_arp(uint8_t *f, uint16_t op, uint32_t spa, uint32_t tpa)
{
    uint8_t *a = f + ETH_HLEN;

    frame_eth(f, op == 1 ? bcast_mac : guest_mac, ETH_TYPE_ARP);
    put16(a, 1);
    put16(a + 2, ETH_TYPE_IPV4);
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, peer_mac, 6);
    put32(a + 14, spa);
    memset(a + 18, 0, 6);
    put32(a + 24, tpa);
    memset(f + ETH_HLEN + ARP_LEN, 0, 60 - ETH_HLEN - ARP_LEN);
    return 60;
}

/* An IPv4 header from the peer to dst around l4_len bytes already at
 * NET_L4_OFFSET; its checksum right. */
static inline unsigned frame_ipv4(uint8_t *f, uint32_t dst, uint8_t proto, unsigned l4_len)
{
    uint8_t *ip = f + ETH_HLEN;

    frame_eth(f, guest_mac, ETH_TYPE_IPV4);
    ip[0] = 0x45;
    ip[1] = 0;
    put16(ip + 2, (uint16_t)(IP_HLEN + l4_len));
    put16(ip + 4, 0x1234);
    put16(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = proto;
    put16(ip + 10, 0);
    put32(ip + 12, PEER_IP);
    put32(ip + 16, dst);
    put16(ip + 10, csum_fold(csum_add(0, ip, IP_HLEN)));
    return NET_L4_OFFSET + l4_len;
}

/* The IP header's checksum computed again, after a test changed a field. */
static inline void frame_ipv4_resum(uint8_t *f)
{
    uint8_t *ip = f + ETH_HLEN;
    unsigned ihl = (ip[0] & 0xfu) * 4;

    put16(ip + 10, 0);
    put16(ip + 10, csum_fold(csum_add(0, ip, ihl)));
}

static inline unsigned frame_udp(uint8_t *f, uint16_t dport, const void *data, unsigned n,
                                 bool with_sum)
{
    uint8_t *u = f + NET_L4_OFFSET;
    uint16_t len = (uint16_t)(UDP_HLEN + n);

    put16(u, 40000);
    put16(u + 2, dport);
    put16(u + 4, len);
    put16(u + 6, 0);
    memcpy(u + UDP_HLEN, data, n);
    if (with_sum) {
        uint16_t s = csum_fold(csum_add(csum_pseudo(PEER_IP, GUEST_IP, IP_PROTO_UDP, len), u, len));
        put16(u + 6, s ? s : 0xffff);
    }
    return frame_ipv4(f, GUEST_IP, IP_PROTO_UDP, len);
}

static inline unsigned frame_ping(uint8_t *f, uint16_t seq, unsigned data_len)
{
    uint8_t *m = f + NET_L4_OFFSET;
    unsigned len = ICMP_HLEN + data_len;

    m[0] = 8;
    m[1] = 0;
    put16(m + 2, 0);
    put16(m + 4, 0xbeef);
    put16(m + 6, seq);
    for (unsigned i = 0; i < data_len; i++)
        m[ICMP_HLEN + i] = (uint8_t)(i * 3 + seq);
    put16(m + 2, csum_fold(csum_add(0, m, len)));
    return frame_ipv4(f, GUEST_IP, IP_PROTO_ICMP, len);
}

#endif
