/* UDP (RFC 768) and its two services: echo on port 7 (RFC 862), and the
 * counters service on port 9, where the client asks for the guest's
 * counters ("stats") and ends the run ("end sent=N received=N wrong=N
 * lost=N"), each answered with the counters line. */
#include "kernel/net/checksum.h"
#include "kernel/net/layers.h"
#include "kernel/net/wire.h"
#include "kernel/string.h"

/* The UDP checksum of the datagram at u, pseudo-header included. */
static uint16_t udp_sum(const uint8_t *frame, unsigned len)
{
    const uint8_t *ip = frame + ETH_HLEN;
    uint32_t s = csum_pseudo(get32(ip + 12), get32(ip + 16), IP_PROTO_UDP, (uint16_t)len);

    return csum_fold(csum_add(s, frame + NET_L4_OFFSET, len));
}

/* Swaps the ports, writes len bytes of datagram and its checksum, sends.
 * An echo whose checksum was checked keeps it (keep_sum): with its ports
 * and addresses swapped and its data as it came, the sum is the same. */
static bool udp_reply(uint8_t *frame, unsigned len, bool keep_sum)
{
    uint8_t *u = frame + NET_L4_OFFSET;
    uint16_t from = get16(u), sum;
    uint8_t *ip = frame + ETH_HLEN;
    uint32_t src = get32(ip + 12);

    put16(u, get16(u + 2));
    put16(u + 2, from);
    if (keep_sum) {
        if (net_tracing)
            net_trace_udp_out(frame, true);
        return ipv4_reply(frame, IP_PROTO_UDP, len);
    }
    put16(u + 4, (uint16_t)len);
    put16(u + 6, 0);
    /* Our reply's pseudo-header: from our address to the sender's. */
    sum = csum_fold(csum_add(csum_pseudo(net_stack.ip, src, IP_PROTO_UDP, (uint16_t)len), u, len));
    /* RFC 768: a computed 0 is sent as all ones; 0 means "no checksum". */
    put16(u + 6, sum ? sum : 0xffff);
    if (net_tracing)
        net_trace_udp_out(frame, false);
    return ipv4_reply(frame, IP_PROTO_UDP, len);
}

/* "key=N" at *s, advancing past it; false unless the key and a number
 * of at most 19 digits are there. */
static bool take_field(const char **s, const char *key, uint64_t *v)
{
    size_t k = strlen(key);
    unsigned digits = 0;

    if (strncmp(*s, key, k) || (*s)[k] != '=')
        return false;
    *s += k + 1;
    for (*v = 0; **s >= '0' && **s <= '9' && digits < 19; (*s)++, digits++)
        *v = *v * 10 + (uint64_t)(**s - '0');
    return digits > 0 && !(**s >= '0' && **s <= '9');
}

/* The client's end of run, parsed whole or not at all. */
static bool parse_end(const char *s, struct net_client_report *r)
{
    if (strncmp(s, "end ", 4))
        return false;
    s += 4;
    if (!take_field(&s, "sent", &r->sent) || *s++ != ' ' ||
        !take_field(&s, "received", &r->received) || *s++ != ' ' ||
        !take_field(&s, "wrong", &r->wrong) || *s++ != ' ' || !take_field(&s, "lost", &r->lost))
        return false;
    return *s == '\0' || (*s == '\n' && s[1] == '\0');
}

/* The request's text is copied out first: the reply is written over it. */
static void counters_service(uint8_t *frame, unsigned data_len)
{
    char req[80];
    uint8_t *data = frame + NET_L4_OFFSET + UDP_HLEN;
    struct net_client_report r;
    unsigned n;

    if (data_len >= sizeof(req)) {
        net_drop(NET_DROP_UDP_REQUEST);
        return;
    }
    memcpy(req, data, data_len);
    req[data_len] = '\0';
    if (parse_end(req, &r)) {
        if (!net_stack.ended) {
            net_stack.report = r;
            __atomic_store_n(&net_stack.ended, true, __ATOMIC_RELEASE);
        }
    } else if (strcmp(req, "stats") && strcmp(req, "stats\n")) {
        net_drop(NET_DROP_UDP_REQUEST);
        return;
    }
    /* Room for the line: an MTU's worth, whatever the request's size. */
    n = (unsigned)net_counters_format((char *)data, NET_MTU - IP_HLEN - UDP_HLEN - 1);
    data[n++] = '\n';
    if (udp_reply(frame, UDP_HLEN + n, false))
        net_stack.c.counter_replies++;
}

void udp_input(uint8_t *frame, unsigned l4_len)
{
    uint8_t *u = frame + NET_L4_OFFSET;
    unsigned len;

    if (l4_len < UDP_HLEN || (len = get16(u + 4)) < UDP_HLEN || len > l4_len) {
        net_drop(NET_DROP_UDP_LENGTH);
        return;
    }
    if (get16(u + 6) != 0 && udp_sum(frame, len) != 0) {
        net_drop(NET_DROP_UDP_CHECKSUM);
        return;
    }
    if (net_tracing)
        net_trace_udp_in(frame, len);
    switch (get16(u + 2)) {
    case NET_UDP_ECHO_PORT:
        if (udp_reply(frame, len, get16(u + 6) != 0))
            net_stack.c.udp_echoes++;
        break;
    case NET_UDP_COUNTERS_PORT:
        counters_service(frame, len - UDP_HLEN);
        break;
    default:
        net_drop(NET_DROP_UDP_PORT);
    }
}
