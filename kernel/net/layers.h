/* What the stack's layers call in each other. Every input function takes
 * the whole received frame (frame[0] is the Ethernet header) and its length
 * as far as the layer below found it valid; a reply is written over the
 * frame and handed back down, each layer filling its own header. */
#ifndef KERNEL_NET_LAYERS_H
#define KERNEL_NET_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/net.h"
#include "kernel/net/stack.h"
#include "kernel/net/trace.h"

/* Counts one drop for reason r. */
void net_drop(enum net_drop r);

/* ethernet.c: swaps the addresses for a reply to the frame's sender, of
 * len bytes in all, and sends it. */
bool eth_reply(uint8_t *frame, unsigned len);
/* Fills the Ethernet header to dst (the broadcast address if NULL). */
void eth_header(uint8_t *frame, const uint8_t *dst, uint16_t type);

/* arp.c */
void arp_input(uint8_t *frame, unsigned len);
/* Announces our address: a gratuitous ARP request, broadcast; false,
 * sending nothing, while the interface is down. Any thread. */
bool arp_announce(void);
/* Asks who has ip, broadcast; the answer lands in the cache. */
bool arp_request(uint32_t ip);
/* The cache: the MAC last seen for ip, false if none. */
bool arp_lookup(uint32_t ip, uint8_t mac[NET_ETH_ALEN]);
void arp_learn(uint32_t ip, const uint8_t mac[NET_ETH_ALEN]);
void arp_cache_clear(void);

/* ipv4.c */
void ipv4_input(uint8_t *frame, unsigned len);
/* A reply of l4_len bytes of protocol proto, at NET_L4_OFFSET, to the
 * sender of the IPv4 packet in frame. */
bool ipv4_reply(uint8_t *frame, uint8_t proto, unsigned l4_len);

/* icmp.c, udp.c: l4_len bytes at NET_L4_OFFSET, all the IP packet held. */
void icmp_input(uint8_t *frame, unsigned l4_len);
void udp_input(uint8_t *frame, unsigned l4_len);

#endif
