/* A ring buffer of bytes: the arithmetic under kernel/channel.c, with no
 * locking of its own. head and tail count every byte ever written and
 * read; they wrap as unsigned numbers, so head - tail is always the
 * number of bytes held, and a power-of-two size makes "& (size - 1)" the
 * position in data. */
#ifndef KERNEL_RING_BUFFER_H
#define KERNEL_RING_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring_buffer {
    uint8_t *data;
    size_t size; /* a power of two */
    size_t head; /* bytes written so far */
    size_t tail; /* bytes read so far */
};

/* Sets r up, empty, over data[0..size); false unless size is a power of two. */
bool ring_init(struct ring_buffer *r, void *data, size_t size);

static inline size_t ring_used(const struct ring_buffer *r)
{
    return r->head - r->tail;
}

static inline size_t ring_free(const struct ring_buffer *r)
{
    return r->size - ring_used(r);
}

/* Copies in as much of src[0..len) as fits; returns how much that was. */
size_t ring_put(struct ring_buffer *r, const void *src, size_t len);

/* Copies out up to len of the oldest bytes; returns how many. */
size_t ring_get(struct ring_buffer *r, void *dst, size_t len);

#endif
