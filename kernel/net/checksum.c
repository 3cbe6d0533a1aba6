/* The Internet checksum. The ones' complement sum does not care which
 * byte of a word is the high one (RFC 1071, section 2(B)): the words are
 * summed as the CPU loads them, eight bytes at a time at any alignment,
 * and the folded sum swapped to network order once at the end. */
#include "kernel/net/checksum.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "csum_add sums little-endian words");

uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
    const uint8_t *b = p;
    uint64_t s = 0, t;

    for (; len >= 8; b += 8, len -= 8) {
        uint64_t w;
        __builtin_memcpy(&w, b, 8);
        s += (w & 0xffffffff) + (w >> 32);
    }
    for (; len >= 2; b += 2, len -= 2) {
        uint16_t h;
        __builtin_memcpy(&h, b, 2);
        s += h;
    }
    if (len) /* the low byte of a little-endian word padded with zero */
        s += b[0];
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    t = (uint64_t)sum + (uint16_t)(s >> 8 | s << 8);
    return (uint32_t)((t & 0xffffffff) + (t >> 32));
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
