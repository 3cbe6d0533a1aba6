/* The Internet checksum, byte by byte: frames arrive at any alignment. */
#include "kernel/net/checksum.h"

uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
    const uint8_t *b = p;
    uint64_t s = sum;

    for (; len >= 2; b += 2, len -= 2)
        s += (uint32_t)(b[0] << 8 | b[1]);
    if (len)
        s += (uint32_t)b[0] << 8;
    while (s >> 32)
        s = (s & 0xffffffff) + (s >> 32);
    return (uint32_t)s;
}

uint16_t csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

uint32_t csum_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
    uint64_t s =
        (uint64_t)(src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) + proto + len;

    return (uint32_t)((s & 0xffffffff) + (s >> 32));
}
