#include "kernel/ring_buffer.h"

#include "kernel/string.h"

bool ring_init(struct ring_buffer *r, void *data, size_t size)
{
    if (size == 0 || (size & (size - 1)) != 0)
        return false;
    *r = (struct ring_buffer){.data = data, .size = size, .head = 0, .tail = 0};
    return true;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* A transfer of n bytes starting at position pos is at most two pieces:
 * up to the end of data, then from its start. */
size_t ring_put(struct ring_buffer *r, const void *src, size_t len)
{
    size_t n = min_size(len, ring_free(r));
    size_t pos = r->head & (r->size - 1);
    size_t first = min_size(n, r->size - pos);

    memcpy(r->data + pos, src, first);
    memcpy(r->data, (const uint8_t *)src + first, n - first);
    r->head += n;
    return n;
}

size_t ring_get(struct ring_buffer *r, void *dst, size_t len)
{
    size_t n = min_size(len, ring_used(r));
    size_t pos = r->tail & (r->size - 1);
    size_t first = min_size(n, r->size - pos);

    memcpy(dst, r->data + pos, first);
    memcpy((uint8_t *)dst + first, r->data, n - first);
    r->tail += n;
    return n;
}
