/* The IPv4 stack's interface: one interface over the first network
 * device, ARP, ICMP echo and UDP's echo (port 7) and counters (port 9)
 * services. Every received frame reaches net_stack_input() from the
 * network thread (drivers/net.c); replies leave through net_transmit().
 * Each layer is a file: ethernet.c, arp.c, ipv4.c, icmp.c, udp.c. */
#ifndef KERNEL_NET_STACK_H
#define KERNEL_NET_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/net.h"

#define NET_UDP_ECHO_PORT 7
#define NET_UDP_COUNTERS_PORT 9
#define NET_TIMED_EVERY 16

/* Why a received frame went no further: one counter each. */
enum net_drop {
    NET_DROP_NOT_UP,        /* before the workload brought the interface up */
    NET_DROP_ETH_SHORT,     /* shorter than an Ethernet header */
    NET_DROP_ETH_NOT_OURS,  /* addressed to another MAC */
    NET_DROP_ETH_TYPE,      /* neither IPv4 nor ARP */
    NET_DROP_ARP_MALFORMED, /* not Ethernet/IPv4 ARP, or short */
    NET_DROP_ARP_NOT_OURS,  /* a request for another address */
    NET_DROP_IP_HEADER,     /* short, not version 4, or a length below the header's */
    NET_DROP_IP_TRUNCATED,  /* claims more bytes than arrived */
    NET_DROP_IP_CHECKSUM,
    NET_DROP_IP_OPTIONS,
    NET_DROP_IP_FRAGMENT,
    NET_DROP_IP_NOT_OURS,
    NET_DROP_IP_PROTOCOL, /* neither ICMP nor UDP */
    NET_DROP_ICMP_SHORT,
    NET_DROP_ICMP_CHECKSUM,
    NET_DROP_ICMP_TYPE, /* anything but an echo request */
    NET_DROP_UDP_LENGTH,
    NET_DROP_UDP_CHECKSUM,
    NET_DROP_UDP_PORT,    /* no service there */
    NET_DROP_UDP_REQUEST, /* the counters service did not understand it */
    NET_DROP_TX_FULL,     /* a reply the transport had no room for */
    NET_DROP_COUNT
};

struct net_counters {
    uint64_t rx_frames; /* handed to net_stack_input */
    uint64_t tx_frames; /* sent, replies and announcements */
    uint64_t arp_replies, echo_replies, udp_echoes, counter_replies;
    uint64_t ticks; /* TSC ticks in net_stack_input, replies sent included, */
    uint64_t timed; /* over this many frames, one in NET_TIMED_EVERY */
    uint64_t dropped[NET_DROP_COUNT];
};

/* What the client said in its `end` datagram (port 9). */
struct net_client_report {
    uint64_t sent, received, wrong, lost;
};

/* The one interface. Addresses in host order. */
struct net_stack {
    struct net_device *dev;
    uint32_t ip, gw;
    bool up;
    bool mutant_ip_checksum; /* a negative control: every IP header sent is wrong */
    uint16_t ip_id;
    struct net_counters c;
    struct net_client_report report;
    bool ended; /* report holds the client's end */
};

extern struct net_stack net_stack;

/* Brings the interface up on d with address ip (and gateway gw, or 0);
 * clears the counters and the client's report. */
void net_stack_up(struct net_device *d, uint32_t ip, uint32_t gw);

/* One received frame, which the stack may rewrite in place to reply. */
void net_stack_input(struct net_device *d, uint8_t *frame, unsigned len);

/* From drivers/net.c: hands the queued frames to the stack, at most a
 * queue's worth, sleeping for one first when block; the network thread's
 * loop. Thread context. */
void net_rx_drain(bool block);

/* The counters line, "net: rx N frames, tx N, dropped: ...", as the
 * workload prints it and the counters service sends it: each reason with
 * drops, then queue-full, the frames the layer's receive queue had no
 * room for. */
size_t net_counters_format(char *buf, size_t size);

/* A reason's name in the counters line, e.g. "ip-checksum". */
const char *net_drop_name(enum net_drop r);

/* "A.B.C.D" to a host-order address; false unless exactly four numbers
 * 0-255 separated by dots. */
bool net_parse_ip4(const char *s, uint32_t *ip);

/* Frames a layer builds go out here; counted, a full transport's refusal
 * counted as NET_DROP_TX_FULL. */
bool net_stack_send(uint8_t *frame, unsigned len);

#endif
