/* ARP for Ethernet and IPv4 (RFC 826): answers requests for our address,
 * asks for others', announces ours, and keeps the last few answers. */
#include "kernel/net/layers.h"
#include "kernel/net/wire.h"
#include "kernel/string.h"

#define ARP_CACHE_SIZE 8
#define ARP_REQUEST 1
#define ARP_REPLY 2

/* Replaced round robin: the stack talks to a handful of peers. */
static struct {
    uint32_t ip;
    uint8_t mac[NET_ETH_ALEN];
    bool valid;
} cache[ARP_CACHE_SIZE];
static unsigned cache_next;

void arp_cache_clear(void)
{
    memset(cache, 0, sizeof(cache));
    cache_next = 0;
}

bool arp_lookup(uint32_t ip, uint8_t mac[NET_ETH_ALEN])
{
    for (unsigned i = 0; i < ARP_CACHE_SIZE; i++) {
        if (cache[i].valid && cache[i].ip == ip) {
            memcpy(mac, cache[i].mac, NET_ETH_ALEN);
            return true;
        }
    }
    return false;
}

void arp_learn(uint32_t ip, const uint8_t mac[NET_ETH_ALEN])
{
    unsigned i;

    for (i = 0; i < ARP_CACHE_SIZE; i++)
        if (cache[i].valid && cache[i].ip == ip)
            break;
    if (i == ARP_CACHE_SIZE) {
        i = cache_next;
        cache_next = (cache_next + 1) % ARP_CACHE_SIZE;
    }
    cache[i].ip = ip;
    memcpy(cache[i].mac, mac, NET_ETH_ALEN);
    cache[i].valid = true;
}

/* The ARP body after the Ethernet header: hardware Ethernet (1), protocol
 * IPv4, address lengths 6 and 4, then op, sender and target pairs. */
static void arp_body(uint8_t *a, uint16_t op, const uint8_t *tha, uint32_t tpa)
{
    put16(a, 1);
    put16(a + 2, ETH_TYPE_IPV4);
    a[4] = NET_ETH_ALEN;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, net_stack.dev->mac, NET_ETH_ALEN);
    put32(a + 14, net_stack.ip);
    if (tha)
        memcpy(a + 18, tha, NET_ETH_ALEN);
    else
        memset(a + 18, 0, NET_ETH_ALEN);
    put32(a + 24, tpa);
}

/* The minimum Ethernet frame is 60 bytes without its FCS: zero padded. */
static bool arp_send_request(uint32_t tpa)
{
    uint8_t f[60] = {0};

    eth_header(f, NULL, ETH_TYPE_ARP);
    arp_body(f + ETH_HLEN, ARP_REQUEST, NULL, tpa);
    return net_stack_send(f, sizeof(f));
}

/* A transport calls this after a move too, when the interface may never
 * have come up: then there is no address to announce. */
bool arp_announce(void)
{
    if (!__atomic_load_n(&net_stack.up, __ATOMIC_ACQUIRE))
        return false;
    return arp_send_request(net_stack.ip);
}

bool arp_request(uint32_t ip)
{
    return arp_send_request(ip);
}

void arp_input(uint8_t *frame, unsigned len)
{
    uint8_t *a = frame + ETH_HLEN;
    uint8_t sha[NET_ETH_ALEN];
    uint32_t spa, tpa;
    uint16_t op;

    if (len < ETH_HLEN + ARP_LEN || get16(a) != 1 || get16(a + 2) != ETH_TYPE_IPV4 ||
        a[4] != NET_ETH_ALEN || a[5] != 4) {
        net_drop(NET_DROP_ARP_MALFORMED);
        return;
    }
    op = get16(a + 6);
    memcpy(sha, a + 8, NET_ETH_ALEN);
    spa = get32(a + 14);
    tpa = get32(a + 24);
    if (op != ARP_REQUEST && op != ARP_REPLY) {
        net_drop(NET_DROP_ARP_MALFORMED);
        return;
    }
    if (tpa != net_stack.ip) {
        net_drop(NET_DROP_ARP_NOT_OURS);
        return;
    }
    /* RFC 826: the target learns the sender's pair before replying. */
    if (spa != 0)
        arp_learn(spa, sha);
    if (op != ARP_REQUEST)
        return;
    eth_header(frame, sha, ETH_TYPE_ARP);
    arp_body(a, ARP_REPLY, sha, spa);
    /* The request's padding, if any, goes back as it came: no more. */
    if (net_stack_send(frame, len < 60 ? len : 60))
        net_stack.c.arp_replies++;
}
