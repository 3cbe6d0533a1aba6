/* net.trace=N's lines from the stack's layers (drivers/net.h says which
 * frames): what each layer read and checked on the way up, and what it
 * wrote into the reply on the way down, for docs/io.md. */
#ifndef KERNEL_NET_TRACE_H
#define KERNEL_NET_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* An IPv4 ICMP echo request or a UDP datagram to the echo port, judged
 * from the headers' fixed offsets only: the layers check the rest. */
bool net_trace_is_echo(const uint8_t *frame, unsigned len);

/* The way up: the Ethernet header, the IPv4 header whose checksum held,
 * the ICMP or UDP header whose checksum held. */
void net_trace_eth_in(const uint8_t *frame, unsigned len);
void net_trace_ip_in(const uint8_t *frame);
void net_trace_icmp_in(const uint8_t *frame, unsigned l4_len);
void net_trace_udp_in(const uint8_t *frame, unsigned len);

/* Where a traced frame stopped instead. */
void net_trace_drop(const char *reason);

/* The way down: the reply's ICMP or UDP header, its IPv4 header and its
 * Ethernet header, as the transport is handed them. */
void net_trace_icmp_out(const uint8_t *frame, unsigned l4_len);
void net_trace_udp_out(const uint8_t *frame, bool kept);
void net_trace_ip_out(const uint8_t *frame);
void net_trace_eth_out(const uint8_t *frame, unsigned len);

#endif
