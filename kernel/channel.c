#include "kernel/channel.h"

#include <stdint.h>

bool channel_init(struct channel *ch, void *buf, size_t size)
{
    *ch = (struct channel){0};
    return ring_init(&ch->ring, buf, size);
}

/* How many bytes must be free (or held) before a transfer with `left` to
 * go may proceed: all of them if they fit in the ring, so that piece is
 * moved whole; otherwise any. */
static size_t piece_needed(const struct channel *ch, size_t left)
{
    return left <= ch->ring.size ? left : 1;
}

/* Both directions wake everyone: a sleeper may need more than the one
 * transfer provides, and must not keep another, satisfied one asleep. */
void channel_send(struct channel *ch, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    unsigned long flags = spin_lock_irqsave(&ch->lock);

    while (len > 0) {
        if (ring_free(&ch->ring) < piece_needed(ch, len)) {
            wait_queue_sleep(&ch->writers, &ch->lock);
            continue;
        }
        size_t n = ring_put(&ch->ring, p, len);
        p += n;
        len -= n;
        wait_queue_wake_all(&ch->readers);
    }
    spin_unlock_irqrestore(&ch->lock, flags);
}

void channel_recv(struct channel *ch, void *buf, size_t len)
{
    uint8_t *p = buf;
    unsigned long flags = spin_lock_irqsave(&ch->lock);

    while (len > 0) {
        if (ring_used(&ch->ring) < piece_needed(ch, len)) {
            wait_queue_sleep(&ch->readers, &ch->lock);
            continue;
        }
        size_t n = ring_get(&ch->ring, p, len);
        p += n;
        len -= n;
        wait_queue_wake_all(&ch->writers);
    }
    spin_unlock_irqrestore(&ch->lock, flags);
}
