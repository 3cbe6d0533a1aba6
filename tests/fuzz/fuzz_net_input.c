/* The IPv4 stack's every parser of a received frame (Ethernet, ARP,
 * IPv4, ICMP, UDP and the counters service's requests), driven through
 * net_stack_input() with a fake device that checks every frame the stack
 * sends: well formed, its checksums right, never longer than a frame.
 *
 * Input: one byte of fix-ups, then the frame. Bit 0 points the frame at
 * the guest (its MAC, and its IP address when IPv4); bit 1 puts a right
 * IP header checksum in; bit 2 a right ICMP or UDP checksum, so the
 * search reaches the layers a checksum would otherwise guard; bit 3
 * traces the frame (net.trace's lines, formatted and thrown away), so
 * the trace's readers of each header are fuzzed with the layers. */
#include <stdarg.h>

#include "drivers/net.h"
#include "kernel/net/layers.h"
#include "kernel/net/stack.h"
#include "tests/fuzz/fuzz.h"
#include "tests/unit/net_frames.h"

static struct net_device dev = {.name = "eth0", .mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56}};
static unsigned nr_sent, last_len;
static bool last_echo; /* ICMP's or UDP port 7's: the data that came, sent back */

static void check_ipv4(const uint8_t *f, unsigned len)
{
    const uint8_t *ip = f + ETH_HLEN, *l4 = f + NET_L4_OFFSET;
    unsigned l4_len = len - NET_L4_OFFSET;

    FUZZ_CHECK(len >= NET_L4_OFFSET && ip[0] == 0x45);
    FUZZ_CHECK(get16(ip + 2) == len - ETH_HLEN);
    FUZZ_CHECK(csum_fold(csum_add(0, ip, IP_HLEN)) == 0);
    FUZZ_CHECK(get32(ip + 12) == GUEST_IP);
    last_echo = ip[9] == IP_PROTO_ICMP || get16(l4) == NET_UDP_ECHO_PORT;
    if (ip[9] == IP_PROTO_ICMP) {
        FUZZ_CHECK(l4_len >= ICMP_HLEN && l4[0] == 0);
        FUZZ_CHECK(csum_fold(csum_add(0, l4, l4_len)) == 0);
        return;
    }
    FUZZ_CHECK(ip[9] == IP_PROTO_UDP && l4_len >= UDP_HLEN && get16(l4 + 4) == l4_len);
    FUZZ_CHECK(get16(l4) == NET_UDP_ECHO_PORT || get16(l4) == NET_UDP_COUNTERS_PORT);
    FUZZ_CHECK(
        csum_fold(csum_add(csum_pseudo(GUEST_IP, get32(ip + 16), IP_PROTO_UDP, (uint16_t)l4_len),
                           l4, l4_len)) == 0);
}

bool net_tracing; /* drivers/net.c's: bit 3 of the fix-ups */

int kprintf(const char *fmt, ...)
{
    static char line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    return n;
}

bool net_transmit(struct net_device *d, const void *frame, unsigned len)
{
    const uint8_t *f = frame;

    FUZZ_CHECK(d == &dev && len <= NET_FRAME_MAX && len >= ETH_HLEN);
    FUZZ_CHECK(memcmp(f + 6, dev.mac, NET_ETH_ALEN) == 0);
    last_echo = false;
    if (get16(f + 12) == ETH_TYPE_ARP)
        FUZZ_CHECK(len >= ETH_HLEN + ARP_LEN && get16(f + ETH_HLEN + 6) == 2 &&
                   get32(f + ETH_HLEN + 14) == GUEST_IP);
    else
        check_ipv4(f, len);
    last_len = len;
    nr_sent++;
    return true;
}

/* The checksums the fix-up bits ask for, where the frame has room. */
static void fix_up(uint8_t *f, unsigned len, uint8_t bits)
{
    uint8_t *ip = f + ETH_HLEN, *l4 = f + NET_L4_OFFSET;
    unsigned total;

    if ((bits & 1) && len >= ETH_HLEN)
        memcpy(f, dev.mac, NET_ETH_ALEN);
    if (len < NET_L4_OFFSET || get16(f + 12) != ETH_TYPE_IPV4 || (ip[0] & 0xf) != 5)
        return;
    if (bits & 1)
        put32(ip + 16, GUEST_IP);
    if (bits & 2)
        frame_ipv4_resum(f);
    total = get16(ip + 2);
    if (!(bits & 4) || total < IP_HLEN || total > len - ETH_HLEN)
        return;
    if (ip[9] == IP_PROTO_ICMP && total >= NET_L4_OFFSET - ETH_HLEN + 2 + 2) {
        put16(l4 + 2, 0);
        put16(l4 + 2, csum_fold(csum_add(0, l4, total - IP_HLEN)));
    } else if (ip[9] == IP_PROTO_UDP && total >= IP_HLEN + UDP_HLEN) {
        uint16_t ulen = get16(l4 + 4);
        if (ulen < UDP_HLEN || ulen > total - IP_HLEN)
            return;
        put16(l4 + 6, 0);
        put16(l4 + 6, csum_fold(csum_add(csum_pseudo(get32(ip + 12), GUEST_IP, IP_PROTO_UDP, ulen),
                                         l4, ulen)));
    }
}

static uint64_t drops(void)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < NET_DROP_COUNT; i++)
        n += net_stack.c.dropped[i];
    return n;
}

/* A ping must be answered, or a stack that drops all would pass. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static uint8_t f[NET_FRAME_MAX];

    (void)argc;
    (void)argv;
    net_stack_up(&dev, GUEST_IP, 0);
    net_stack_input(&dev, f, frame_ping(f, 1, 56));
    FUZZ_CHECK(nr_sent == 1 && net_stack.c.echo_replies == 1 && drops() == 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t f[NET_FRAME_MAX];
    unsigned len;
    uint64_t rx = net_stack.c.rx_frames, dropped = drops(), sent = nr_sent;

    if (size < 1 || size - 1 > NET_FRAME_MAX)
        return 0;
    len = (unsigned)(size - 1);
    memcpy(f, data + 1, len);
    fix_up(f, len, data[0]);
    net_tracing = data[0] & 8;
    net_stack_input(&dev, f, len);
    net_tracing = false;
    /* One frame in: at most one reply, and dropped at most once. */
    FUZZ_CHECK(net_stack.c.rx_frames == rx + 1);
    FUZZ_CHECK(nr_sent - sent <= 1 && drops() - dropped <= 1);
    FUZZ_CHECK(!(nr_sent > sent && drops() > dropped));
    /* An echo holds only bytes that arrived. */
    FUZZ_CHECK(!(nr_sent > sent && last_echo && last_len > len));
    return 0;
}
