/* ICMP (RFC 792): echo requests answered with their data, nothing else. */
#include "kernel/net/checksum.h"
#include "kernel/net/layers.h"
#include "kernel/net/wire.h"

#define ICMP_ECHO_REPLY 0
#define ICMP_ECHO_REQUEST 8

void icmp_input(uint8_t *frame, unsigned l4_len)
{
    uint8_t *m = frame + NET_L4_OFFSET;

    if (l4_len < ICMP_HLEN) {
        net_drop(NET_DROP_ICMP_SHORT);
        return;
    }
    if (csum_fold(csum_add(0, m, l4_len)) != 0) {
        net_drop(NET_DROP_ICMP_CHECKSUM);
        return;
    }
    if (m[0] != ICMP_ECHO_REQUEST || m[1] != 0) {
        net_drop(NET_DROP_ICMP_TYPE);
        return;
    }
    if (net_tracing)
        net_trace_icmp_in(frame, l4_len);
    /* The identifier, sequence number and data go back as they came. */
    m[0] = ICMP_ECHO_REPLY;
    put16(m + 2, 0);
    put16(m + 2, csum_fold(csum_add(0, m, l4_len)));
    if (net_tracing)
        net_trace_icmp_out(frame, l4_len);
    if (ipv4_reply(frame, IP_PROTO_ICMP, l4_len))
        net_stack.c.echo_replies++;
}
