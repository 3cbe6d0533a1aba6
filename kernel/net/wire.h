/* Network byte order on unaligned buffers, and the headers' fixed sizes
 * and offsets: the layers read and write frames as bytes, never through
 * packed structs, so no field's alignment or the host's order matters. */
#ifndef KERNEL_NET_WIRE_H
#define KERNEL_NET_WIRE_H

#include <stdint.h>

#define ETH_HLEN 14u
#define ETH_TYPE_IPV4 0x0800
#define ETH_TYPE_ARP 0x0806
#define ARP_LEN 28u /* Ethernet/IPv4 ARP, after the Ethernet header */
#define IP_HLEN 20u /* without options, the only header the stack takes */
#define IP_PROTO_ICMP 1
#define IP_PROTO_UDP 17
#define ICMP_HLEN 8u
#define UDP_HLEN 8u
#define NET_L4_OFFSET (ETH_HLEN + IP_HLEN)

static inline uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#endif
