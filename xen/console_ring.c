#include "xen/console_ring.h"

/* Xen ABI: out_cons and out_prod run freely over all 32-bit values; their
 * difference is the fill level and MASK_XENCONS_IDX() the ring offset, so
 * the ring size must stay a power of two. */
_Static_assert((sizeof(((struct xencons_interface *)0)->out) &
                (sizeof(((struct xencons_interface *)0)->out) - 1)) == 0,
               "the console ring size must be a power of two");

static XENCONS_RING_IDX read_index(const XENCONS_RING_IDX *idx)
{
    return __atomic_load_n(idx, __ATOMIC_ACQUIRE);
}

size_t xencons_ring_space(const struct xencons_interface *ring)
{
    XENCONS_RING_IDX used = read_index(&ring->out_prod) - read_index(&ring->out_cons);

    /* More in use than fits: the other end broke the ring; write nothing. */
    if (used > sizeof(ring->out))
        return 0;
    return sizeof(ring->out) - used;
}

size_t xencons_ring_write(struct xencons_interface *ring, const char *s, size_t len)
{
    XENCONS_RING_IDX prod = ring->out_prod;
    size_t n = xencons_ring_space(ring);

    if (n > len)
        n = len;
    for (size_t i = 0; i < n; i++)
        ring->out[MASK_XENCONS_IDX(prod + i, ring->out)] = s[i];
    /* The bytes must be visible before the index that hands them over. */
    __atomic_store_n(&ring->out_prod, prod + (XENCONS_RING_IDX)n, __ATOMIC_RELEASE);
    return n;
}
