/* A channel: a bounded pipe of bytes between threads, over a ring buffer
 * the creator provides. Senders block while it is full, receivers while
 * it is empty. A send or receive no larger than the ring moves its bytes
 * in one piece, so messages of a fixed size never interleave or split,
 * however many threads use the channel. */
#ifndef KERNEL_CHANNEL_H
#define KERNEL_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/ring_buffer.h"
#include "kernel/spinlock.h"
#include "kernel/wait_queue.h"

struct channel {
    struct spinlock lock; /* protects ring; the wait queues' sleepers hold it */
    struct ring_buffer ring;
    struct wait_queue readers; /* waiting for bytes */
    struct wait_queue writers; /* waiting for room */
};

/* An empty channel over buf[0..size); false unless size is a power of two. */
bool channel_init(struct channel *ch, void *buf, size_t size);

/* Sends all of buf[0..len), waiting for room as needed. */
void channel_send(struct channel *ch, const void *buf, size_t len);

/* Receives exactly len bytes into buf, waiting for them as needed. */
void channel_recv(struct channel *ch, void *buf, size_t len);

#endif
