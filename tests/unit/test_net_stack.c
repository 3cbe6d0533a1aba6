/* The IPv4 stack (kernel/net/) fed frames a peer would send, real and
 * malformed: what it answers, byte for byte, and which counter each
 * frame it drops lands in. The transport is faked: it records what the
 * stack sends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/net/layers.h"
#include "kernel/net/stack.h"
#include "tests/unit/net_frames.h"

/* ---- The fake transport: every frame sent, kept. */

static uint8_t sent[4][NET_FRAME_MAX];
static unsigned sent_len[4], nr_sent;
static bool refuse;
static struct net_device dev = {.name = "eth0", .mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};
static uint8_t f[NET_FRAME_MAX];

bool net_tracing; /* drivers/net.c's: set by the trace tests alone */

/* net.trace's lines, kept: the console is the trace's only output. */
static char traced[4096];
static size_t traced_len;

int kprintf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(traced + traced_len, sizeof(traced) - traced_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        traced_len += (size_t)n < sizeof(traced) - traced_len ? (size_t)n : 0;
    return n;
}

bool net_transmit(struct net_device *d, const void *frame, unsigned len)
{
    assert_ptr_equal(d, &dev);
    assert_true(len <= NET_FRAME_MAX);
    if (refuse)
        return false;
    assert_true(nr_sent < 4);
    memcpy(sent[nr_sent], frame, len);
    sent_len[nr_sent++] = len;
    return true;
}

static int setup(void **state)
{
    (void)state;
    nr_sent = 0;
    refuse = false;
    memset(f, 0, sizeof(f));
    net_stack.mutant_ip_checksum = false;
    net_tracing = false;
    traced_len = 0;
    traced[0] = '\0';
    net_stack_up(&dev, GUEST_IP, 0);
    return 0;
}

static uint64_t dropped(enum net_drop r)
{
    return net_stack.c.dropped[r];
}

/* Nothing sent, and exactly one drop, for reason r. */
static void assert_dropped_only(enum net_drop r)
{
    uint64_t total = 0;

    for (unsigned i = 0; i < NET_DROP_COUNT; i++)
        total += net_stack.c.dropped[i];
    assert_int_equal(nr_sent, 0);
    assert_int_equal(dropped(r), 1);
    assert_int_equal(total, 1);
}

/* A reply's IPv4 header: well formed, from the guest to the peer, with a
 * right checksum. */
static void assert_ip_reply(const uint8_t *r, uint8_t proto, unsigned l4_len)
{
    const uint8_t *ip = r + ETH_HLEN;

    assert_memory_equal(r, peer_mac, 6);
    assert_memory_equal(r + 6, guest_mac, 6);
    assert_int_equal(get16(r + 12), ETH_TYPE_IPV4);
    assert_int_equal(ip[0], 0x45);
    assert_int_equal(get16(ip + 2), IP_HLEN + l4_len);
    assert_int_equal(ip[9], proto);
    assert_int_equal(get32(ip + 12), GUEST_IP);
    assert_int_equal(get32(ip + 16), PEER_IP);
    assert_int_equal(csum_fold(csum_add(0, ip, IP_HLEN)), 0);
}

/* ---- Ethernet */

static void test_eth_before_up(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    net_stack.up = false;
    net_stack_input(&dev, f, len);
    assert_dropped_only(NET_DROP_NOT_UP);
}

static void test_eth_short_other_mac_other_type(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    net_stack_input(&dev, f, ETH_HLEN - 1);
    assert_dropped_only(NET_DROP_ETH_SHORT);
    f[5] ^= 1;
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_ETH_NOT_OURS), 1);
    f[5] ^= 1;
    put16(f + 12, 0x86dd); /* IPv6 */
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_ETH_TYPE), 1);
    assert_int_equal(nr_sent, 0);
    assert_int_equal(net_stack.c.rx_frames, 3);
}

/* ---- ARP */

static void test_arp_request_answered_and_learnt(void **state)
{
    uint8_t mac[NET_ETH_ALEN];
    const uint8_t *a;

    (void)state;
    net_stack_input(&dev, f, frame_arp(f, 1, PEER_IP, GUEST_IP));
    assert_int_equal(nr_sent, 1);
    a = sent[0] + ETH_HLEN;
    assert_memory_equal(sent[0], peer_mac, 6);
    assert_memory_equal(sent[0] + 6, guest_mac, 6);
    assert_int_equal(get16(sent[0] + 12), ETH_TYPE_ARP);
    assert_int_equal(get16(a + 6), 2);
    assert_memory_equal(a + 8, guest_mac, 6);
    assert_int_equal(get32(a + 14), GUEST_IP);
    assert_memory_equal(a + 18, peer_mac, 6);
    assert_int_equal(get32(a + 24), PEER_IP);
    assert_int_equal(sent_len[0], 60);
    assert_true(arp_lookup(PEER_IP, mac));
    assert_memory_equal(mac, peer_mac, 6);
    assert_int_equal(net_stack.c.arp_replies, 1);
}

static void test_arp_for_another_address(void **state)
{
    uint8_t mac[NET_ETH_ALEN];

    (void)state;
    net_stack_input(&dev, f, frame_arp(f, 1, PEER_IP, GUEST_IP + 1));
    assert_dropped_only(NET_DROP_ARP_NOT_OURS);
    assert_false(arp_lookup(PEER_IP, mac));
}

static void test_arp_malformed(void **state)
{
    unsigned len = frame_arp(f, 1, PEER_IP, GUEST_IP);

    (void)state;
    net_stack_input(&dev, f, ETH_HLEN + ARP_LEN - 1);
    assert_dropped_only(NET_DROP_ARP_MALFORMED);
    f[ETH_HLEN + 4] = 8; /* a hardware address of 8 bytes */
    net_stack_input(&dev, f, len);
    f[ETH_HLEN + 4] = 6;
    put16(f + ETH_HLEN + 6, 3); /* RARP's request */
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_ARP_MALFORMED), 3);
    assert_int_equal(nr_sent, 0);
}

static void test_arp_reply_fills_cache(void **state)
{
    uint8_t mac[NET_ETH_ALEN];

    (void)state;
    assert_true(arp_request(PEER_IP));
    assert_int_equal(nr_sent, 1);
    assert_memory_equal(sent[0], bcast_mac, 6);
    assert_int_equal(get16(sent[0] + ETH_HLEN + 6), 1);
    assert_int_equal(get32(sent[0] + ETH_HLEN + 24), PEER_IP);
    net_stack_input(&dev, f, frame_arp(f, 2, PEER_IP, GUEST_IP));
    assert_int_equal(nr_sent, 1); /* a reply gets none */
    assert_true(arp_lookup(PEER_IP, mac));
    assert_memory_equal(mac, peer_mac, 6);
}

static void test_arp_announce(void **state)
{
    const uint8_t *a = sent[0] + ETH_HLEN;

    (void)state;
    assert_true(arp_announce());
    assert_int_equal(nr_sent, 1);
    assert_memory_equal(sent[0], bcast_mac, 6);
    assert_int_equal(get16(a + 6), 1);
    assert_int_equal(get32(a + 14), GUEST_IP); /* gratuitous: sender and target ours */
    assert_int_equal(get32(a + 24), GUEST_IP);
}

/* A transport announces after every move, up or not: down, nothing. */
static void test_arp_announce_while_down(void **state)
{
    (void)state;
    net_stack.up = false;
    assert_false(arp_announce());
    assert_int_equal(nr_sent, 0);
}

/* Eight entries, replaced oldest first; learning an address again
 * updates its entry in place. */
static void test_arp_cache_replacement(void **state)
{
    uint8_t mac[NET_ETH_ALEN] = {2, 0, 0, 0, 0, 0}, got[NET_ETH_ALEN];

    (void)state;
    for (uint8_t i = 0; i < 8; i++) {
        mac[5] = i;
        arp_learn(0x0a000100u + i, mac);
    }
    mac[5] = 0x77;
    arp_learn(0x0a000103u, mac);
    assert_true(arp_lookup(0x0a000103u, got));
    assert_int_equal(got[5], 0x77);
    arp_learn(0x0a000200u, mac); /* the ninth replaces the first */
    assert_false(arp_lookup(0x0a000100u, got));
    for (uint8_t i = 1; i < 8; i++)
        assert_true(arp_lookup(0x0a000100u + i, got));
    assert_true(arp_lookup(0x0a000200u, got));
}

/* ---- IPv4 */

static void test_ip_bad_checksum(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    f[ETH_HLEN + 11] ^= 0x40;
    net_stack_input(&dev, f, len);
    assert_dropped_only(NET_DROP_IP_CHECKSUM);
}

static void test_ip_options(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    f[ETH_HLEN] = 0x46; /* a header of 24 bytes: 4 of options */
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    assert_dropped_only(NET_DROP_IP_OPTIONS);
}

static void test_ip_fragments(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    put16(f + ETH_HLEN + 6, 0x2000); /* more fragments */
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    put16(f + ETH_HLEN + 6, 0x0001); /* a later fragment */
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_IP_FRAGMENT), 2);
    assert_int_equal(nr_sent, 0);
}

/* A total length claiming more bytes than arrived. */
static void test_ip_longer_than_arrived(void **state)
{
    unsigned len = frame_ping(f, 1, 32);

    (void)state;
    net_stack_input(&dev, f, len - 1);
    assert_dropped_only(NET_DROP_IP_TRUNCATED);
}

static void test_ip_bad_header(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    net_stack_input(&dev, f, ETH_HLEN + IP_HLEN - 1); /* short of a header */
    f[ETH_HLEN] = 0x65;                               /* version 6 */
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    f[ETH_HLEN] = 0x44; /* a header of 16 bytes */
    net_stack_input(&dev, f, len);
    f[ETH_HLEN] = 0x45;
    put16(f + ETH_HLEN + 2, 19); /* a total below the header's */
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_IP_HEADER), 4);
    assert_int_equal(nr_sent, 0);
}

static void test_ip_not_ours_and_protocol(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    put32(f + ETH_HLEN + 16, GUEST_IP + 1);
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    put32(f + ETH_HLEN + 16, GUEST_IP);
    f[ETH_HLEN + 9] = 6; /* TCP */
    frame_ipv4_resum(f);
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_IP_NOT_OURS), 1);
    assert_int_equal(dropped(NET_DROP_IP_PROTOCOL), 1);
    assert_int_equal(nr_sent, 0);
}

/* The negative control's switch: every reply's checksum wrong. */
static void test_ip_mutant_checksum(void **state)
{
    (void)state;
    net_stack.mutant_ip_checksum = true;
    net_stack_input(&dev, f, frame_ping(f, 1, 8));
    assert_int_equal(nr_sent, 1);
    assert_int_not_equal(csum_fold(csum_add(0, sent[0] + ETH_HLEN, IP_HLEN)), 0);
}

/* ---- ICMP */

static void test_icmp_echo(void **state)
{
    uint8_t req[NET_FRAME_MAX];
    unsigned len = frame_ping(f, 7, 56);
    const uint8_t *m = sent[0] + NET_L4_OFFSET;

    (void)state;
    memcpy(req, f, len);
    net_stack_input(&dev, f, len);
    assert_int_equal(nr_sent, 1);
    assert_int_equal(sent_len[0], len);
    assert_ip_reply(sent[0], IP_PROTO_ICMP, ICMP_HLEN + 56);
    assert_int_equal(m[0], 0);
    assert_int_equal(m[1], 0);
    assert_int_equal(csum_fold(csum_add(0, m, ICMP_HLEN + 56)), 0);
    /* identifier, sequence number and data as they came */
    assert_memory_equal(m + 4, req + NET_L4_OFFSET + 4, 4 + 56);
    assert_int_equal(net_stack.c.echo_replies, 1);
}

static void test_icmp_malformed(void **state)
{
    unsigned len = frame_ping(f, 7, 8);

    (void)state;
    f[NET_L4_OFFSET + ICMP_HLEN + 2] ^= 1; /* data changed, checksum not */
    net_stack_input(&dev, f, len);
    assert_dropped_only(NET_DROP_ICMP_CHECKSUM);
    len = frame_ping(f, 7, 8);
    f[NET_L4_OFFSET] = 13; /* a timestamp request */
    put16(f + NET_L4_OFFSET + 2, 0);
    put16(f + NET_L4_OFFSET + 2, csum_fold(csum_add(0, f + NET_L4_OFFSET, ICMP_HLEN + 8)));
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_ICMP_TYPE), 1);
    frame_ipv4(f, GUEST_IP, IP_PROTO_ICMP, 4);
    net_stack_input(&dev, f, NET_L4_OFFSET + 4);
    assert_int_equal(dropped(NET_DROP_ICMP_SHORT), 1);
    assert_int_equal(nr_sent, 0);
}

/* ---- UDP */

static void assert_udp_echo(const uint8_t *data, unsigned n, unsigned len)
{
    const uint8_t *u = sent[0] + NET_L4_OFFSET;
    uint16_t ulen = (uint16_t)(UDP_HLEN + n);

    assert_int_equal(nr_sent, 1);
    assert_int_equal(sent_len[0], NET_L4_OFFSET + ulen);
    (void)len;
    assert_ip_reply(sent[0], IP_PROTO_UDP, ulen);
    assert_int_equal(get16(u), 7);
    assert_int_equal(get16(u + 2), 40000);
    assert_int_equal(get16(u + 4), ulen);
    assert_memory_equal(u + UDP_HLEN, data, n);
    assert_int_not_equal(get16(u + 6), 0);
    assert_int_equal(
        csum_fold(csum_add(csum_pseudo(GUEST_IP, PEER_IP, IP_PROTO_UDP, ulen), u, ulen)), 0);
}

static void test_udp_echo(void **state)
{
    uint8_t data[1472];

    (void)state;
    for (unsigned i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 7 + 1);
    net_stack_input(&dev, f, frame_udp(f, 7, data, sizeof(data), true));
    assert_udp_echo(data, sizeof(data), 0);
    assert_int_equal(net_stack.c.udp_echoes, 1);
}

/* No checksum (0) is taken; the link's padding past the IP packet is not
 * echoed. */
static void test_udp_echo_unsummed_and_padded(void **state)
{
    (void)state;
    unsigned len = frame_udp(f, 7, "hi", 2, false);

    net_stack_input(&dev, f, len + 16);
    assert_udp_echo((const uint8_t *)"hi", 2, len);
}

static void test_udp_malformed(void **state)
{
    unsigned len = frame_udp(f, 7, "hello", 5, true);

    (void)state;
    f[len - 1] ^= 1;
    net_stack_input(&dev, f, len);
    assert_dropped_only(NET_DROP_UDP_CHECKSUM);
    len = frame_udp(f, 7, "hello", 5, false);
    put16(f + NET_L4_OFFSET + 4, UDP_HLEN + 6); /* longer than the IP packet's */
    net_stack_input(&dev, f, len);
    put16(f + NET_L4_OFFSET + 4, 7); /* shorter than its own header */
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_UDP_LENGTH), 2);
    frame_udp(f, 7, "hello", 5, true);
    put16(f + NET_L4_OFFSET + 2, 1234);
    put16(f + NET_L4_OFFSET + 6, 0);
    net_stack_input(&dev, f, len);
    assert_int_equal(dropped(NET_DROP_UDP_PORT), 1);
    assert_int_equal(nr_sent, 0);
}

static void test_udp_counters_stats(void **state)
{
    const char *line = (const char *)sent[0] + NET_L4_OFFSET + UDP_HLEN;

    (void)state;
    net_stack_input(&dev, f, ETH_HLEN - 1);
    net_stack_input(&dev, f, frame_udp(f, 9, "stats", 5, true));
    assert_int_equal(nr_sent, 1);
    assert_int_equal(get16(sent[0] + NET_L4_OFFSET), 9);
    assert_true(strncmp(line, "net: rx 2 frames, tx 0, dropped: eth-short 1\n", 45) == 0);
    assert_false(net_stack.ended);
}

static void test_udp_counters_end(void **state)
{
    const char *end = "end sent=100 received=98 wrong=1 lost=2\n";

    (void)state;
    net_stack_input(&dev, f, frame_udp(f, 9, end, (unsigned)strlen(end), true));
    assert_true(net_stack.ended);
    assert_int_equal(net_stack.report.sent, 100);
    assert_int_equal(net_stack.report.received, 98);
    assert_int_equal(net_stack.report.wrong, 1);
    assert_int_equal(net_stack.report.lost, 2);
    assert_int_equal(nr_sent, 1); /* acknowledged with the counters line */
    /* A repeated end (the client resends until answered) changes nothing. */
    end = "end sent=1 received=1 wrong=0 lost=0";
    net_stack_input(&dev, f, frame_udp(f, 9, end, (unsigned)strlen(end), true));
    assert_int_equal(net_stack.report.sent, 100);
}

static void test_udp_counters_bad_requests(void **state)
{
    static const char *const bad[] = {
        "end sent=1 received=1 wrong=0",
        "end sent=1 received=1 wrong=0 lost=x",
        "end sent=1 received=1 wrong=0 lost=0 z",
        "end sent=-1 received=1 wrong=0 lost=0",
        "end sent=99999999999999999999 received=1 wrong=0 lost=0",
        "stat",
    };

    (void)state;
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        net_stack_input(&dev, f, frame_udp(f, 9, bad[i], (unsigned)strlen(bad[i]), true));
    assert_int_equal(dropped(NET_DROP_UDP_REQUEST), sizeof(bad) / sizeof(bad[0]));
    assert_false(net_stack.ended);
    assert_int_equal(nr_sent, 0);
}

/* A reply the transport has no room for is counted, not retried. */
static void test_tx_full(void **state)
{
    (void)state;
    refuse = true;
    net_stack_input(&dev, f, frame_ping(f, 1, 8));
    assert_int_equal(dropped(NET_DROP_TX_FULL), 1);
    assert_int_equal(net_stack.c.tx_frames, 0);
    assert_int_equal(net_stack.c.echo_replies, 0);
}

/* ---- Real frames: QEMU's user network (its own IP stack, slirp) as the
 * guest's card received them, taken from a filter-dump of a tools/run
 * --net run: its ARP reply for the gateway (padded to 60 bytes), a
 * datagram of the host's udpclient to the echo port, and its end. */

static const uint8_t qemu_arp_reply[] = {
    0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02, 0x08, 0x06, 0x00, 0x01,
    0x08, 0x00, 0x06, 0x04, 0x00, 0x02, 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02, 0x0a, 0x00, 0x02, 0x02,
    0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x0a, 0x00, 0x02, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

static const uint8_t qemu_udp_echo[] = {
    0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02, 0x08, 0x00, 0x45, 0x00,
    0x00, 0x5c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x62, 0x81, 0x0a, 0x00, 0x02, 0x02, 0x0a, 0x00,
    0x02, 0x0f, 0xce, 0x76, 0x00, 0x07, 0x00, 0x48, 0xac, 0x61, 0x00, 0x00, 0x00, 0x00, 0x99, 0xfb,
    0x90, 0x8f, 0xc2, 0x7e, 0xdd, 0x2a, 0x33, 0xd3, 0x10, 0xeb, 0x3f, 0x33, 0xf3, 0x6b, 0x47, 0x94,
    0x09, 0x27, 0x45, 0x50, 0xcf, 0x06, 0xbc, 0xa0, 0x89, 0x33, 0x61, 0xda, 0xc7, 0xbc, 0x87, 0x6a,
    0xba, 0xec, 0x4b, 0x92, 0x38, 0x68, 0x83, 0xe1, 0x90, 0x0c, 0x67, 0x75, 0x0f, 0x83, 0xfd, 0xf0,
    0x4f, 0xa8, 0x46, 0x3b, 0x43, 0xa0, 0x2a, 0xfd, 0x02, 0xb4};

static const uint8_t qemu_udp_end[] = {
    0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02, 0x08, 0x00, 0x45, 0x00,
    0x00, 0x41, 0x00, 0x03, 0x00, 0x00, 0x40, 0x11, 0x62, 0x99, 0x0a, 0x00, 0x02, 0x02, 0x0a, 0x00,
    0x02, 0x0f, 0xce, 0x76, 0x00, 0x09, 0x00, 0x2d, 0x92, 0x13, 0x65, 0x6e, 0x64, 0x20, 0x73, 0x65,
    0x6e, 0x74, 0x3d, 0x33, 0x20, 0x72, 0x65, 0x63, 0x65, 0x69, 0x76, 0x65, 0x64, 0x3d, 0x33, 0x20,
    0x77, 0x72, 0x6f, 0x6e, 0x67, 0x3d, 0x30, 0x20, 0x6c, 0x6f, 0x73, 0x74, 0x3d, 0x30, 0x0a};

static void test_real_frames(void **state)
{
    const uint8_t *u = sent[0] + NET_L4_OFFSET;
    uint8_t mac[NET_ETH_ALEN];

    (void)state;
    memcpy(f, qemu_arp_reply, sizeof(qemu_arp_reply));
    net_stack_input(&dev, f, sizeof(qemu_arp_reply));
    assert_true(arp_lookup(PEER_IP, mac));
    assert_memory_equal(mac, peer_mac, 6);
    memcpy(f, qemu_udp_echo, sizeof(qemu_udp_echo));
    net_stack_input(&dev, f, sizeof(qemu_udp_echo));
    assert_int_equal(nr_sent, 1);
    assert_int_equal(sent_len[0], sizeof(qemu_udp_echo));
    assert_ip_reply(sent[0], IP_PROTO_UDP, sizeof(qemu_udp_echo) - NET_L4_OFFSET);
    /* Ports and addresses swapped leave the sum as it was: slirp's. */
    assert_int_equal(get16(u + 6), get16(qemu_udp_echo + NET_L4_OFFSET + 6));
    assert_memory_equal(u + UDP_HLEN, qemu_udp_echo + NET_L4_OFFSET + UDP_HLEN,
                        sizeof(qemu_udp_echo) - NET_L4_OFFSET - UDP_HLEN);
    memcpy(f, qemu_udp_end, sizeof(qemu_udp_end));
    net_stack_input(&dev, f, sizeof(qemu_udp_end));
    assert_true(net_stack.ended);
    assert_int_equal(net_stack.report.sent, 3);
    assert_int_equal(net_stack.report.received, 3);
    assert_int_equal(net_stack.report.lost, 0);
    for (unsigned i = 0; i < NET_DROP_COUNT; i++)
        assert_int_equal(net_stack.c.dropped[i], 0);
}

/* ---- Addresses and the counters line */

static void test_parse_ip4(void **state)
{
    static const char *const bad[] = {"",         "10.0.2",     "10.0.2.15.", "10.0.2.256",
                                      "10..2.15", "10.0.2.15 ", "1.2.3.0004", "a.b.c.d"};
    uint32_t ip;

    (void)state;
    assert_true(net_parse_ip4("10.0.2.15", &ip));
    assert_int_equal(ip, GUEST_IP);
    assert_true(net_parse_ip4("255.255.255.255", &ip));
    assert_int_equal(ip, 0xffffffffu);
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(net_parse_ip4(bad[i], &ip));
}

static void test_counters_line(void **state)
{
    char line[200];

    (void)state;
    net_counters_format(line, sizeof(line));
    assert_string_equal(line, "net: rx 0 frames, tx 0, dropped: none");
    net_stack.c.rx_frames = 12;
    net_stack.c.tx_frames = 3;
    net_stack.c.dropped[NET_DROP_IP_CHECKSUM] = 2;
    net_stack.c.dropped[NET_DROP_UDP_PORT] = 1;
    net_counters_format(line, sizeof(line));
    assert_string_equal(line, "net: rx 12 frames, tx 3, dropped: ip-checksum 2, udp-port 1");
    dev.stats.rx_dropped = 5; /* the layer's, before the stack saw them */
    net_counters_format(line, sizeof(line));
    assert_string_equal(
        line, "net: rx 12 frames, tx 3, dropped: ip-checksum 2, udp-port 1, queue-full 5");
    dev.stats.rx_dropped = 0;
    net_counters_format(line, 20); /* cut short, still a string */
    assert_int_equal(strlen(line), 19);
}

/* ---- net.trace */

/* A traced ping: each layer says what it verified on the way up and what
 * it wrote into the reply, the checksums as they are on the wire. */
static void test_trace_ping(void **state)
{
    unsigned len = frame_ping(f, 7, 56);
    char want[128];

    (void)state;
    assert_true(net_trace_is_echo(f, len));
    net_tracing = true;
    net_stack_input(&dev, f, len);
    assert_int_equal(nr_sent, 1);
    assert_non_null(strstr(traced, "net: trace: eth in: dst 52:54:00:12:34:56, src "
                                   "52:55:0a:00:02:02, type 0x0800 (IPv4), 98 bytes\n"));
    assert_non_null(strstr(traced, "net: trace: ipv4 in: 10.0.2.2 -> 10.0.2.15, total length 84"));
    assert_non_null(strstr(traced, "net: trace: icmp in: type 8 (echo request), code 0, id "));
    snprintf(want, sizeof(want), "sequence 7, 56 bytes of data, checksum 0x%04x computed",
             get16(sent[0] + NET_L4_OFFSET + 2));
    assert_non_null(strstr(traced, want));
    snprintf(want, sizeof(want), "protocol 1 (ICMP), header checksum 0x%04x computed",
             get16(sent[0] + ETH_HLEN + 10));
    assert_non_null(strstr(traced, want));
    assert_non_null(strstr(traced, "net: trace: eth out: dst 52:55:0a:00:02:02"));
}

/* A traced frame that stops says where; untraced frames print nothing,
 * and only echo requests are chosen. */
static void test_trace_drop_and_quiet(void **state)
{
    unsigned len = frame_ping(f, 1, 8);

    (void)state;
    net_stack_input(&dev, f, len);
    assert_int_equal(traced_len, 0);
    frame_ping(f, 1, 8); /* the reply was written over it */
    f[ETH_HLEN + 11] ^= 0x40;
    net_tracing = true;
    net_stack_input(&dev, f, len);
    assert_non_null(strstr(traced, "net: trace: dropped: ip-checksum\n"));
    assert_false(net_trace_is_echo(f, frame_arp(f, 1, PEER_IP, GUEST_IP)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_eth_before_up, setup),
        cmocka_unit_test_setup(test_eth_short_other_mac_other_type, setup),
        cmocka_unit_test_setup(test_arp_request_answered_and_learnt, setup),
        cmocka_unit_test_setup(test_arp_for_another_address, setup),
        cmocka_unit_test_setup(test_arp_malformed, setup),
        cmocka_unit_test_setup(test_arp_reply_fills_cache, setup),
        cmocka_unit_test_setup(test_arp_announce, setup),
        cmocka_unit_test_setup(test_arp_announce_while_down, setup),
        cmocka_unit_test_setup(test_arp_cache_replacement, setup),
        cmocka_unit_test_setup(test_ip_bad_checksum, setup),
        cmocka_unit_test_setup(test_ip_options, setup),
        cmocka_unit_test_setup(test_ip_fragments, setup),
        cmocka_unit_test_setup(test_ip_longer_than_arrived, setup),
        cmocka_unit_test_setup(test_ip_bad_header, setup),
        cmocka_unit_test_setup(test_ip_not_ours_and_protocol, setup),
        cmocka_unit_test_setup(test_ip_mutant_checksum, setup),
        cmocka_unit_test_setup(test_icmp_echo, setup),
        cmocka_unit_test_setup(test_icmp_malformed, setup),
        cmocka_unit_test_setup(test_udp_echo, setup),
        cmocka_unit_test_setup(test_udp_echo_unsummed_and_padded, setup),
        cmocka_unit_test_setup(test_udp_malformed, setup),
        cmocka_unit_test_setup(test_udp_counters_stats, setup),
        cmocka_unit_test_setup(test_udp_counters_end, setup),
        cmocka_unit_test_setup(test_udp_counters_bad_requests, setup),
        cmocka_unit_test_setup(test_tx_full, setup),
        cmocka_unit_test_setup(test_real_frames, setup),
        cmocka_unit_test_setup(test_parse_ip4, setup),
        cmocka_unit_test_setup(test_counters_line, setup),
        cmocka_unit_test_setup(test_trace_ping, setup),
        cmocka_unit_test_setup(test_trace_drop_and_quiet, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
