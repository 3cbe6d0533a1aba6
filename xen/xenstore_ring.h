/* The guest's end of the xenstore rings (struct xenstore_domain_interface
 * from <xen/io/xs_wire.h>): requests go out on req, replies come back on
 * rsp, each a struct xsd_sockmsg header and its payload. Pure code over
 * the shared page, no hypercalls, so a host test can drive it; the
 * client that notifies and waits is xen/xenstore.c. */
#ifndef XEN_XENSTORE_RING_H
#define XEN_XENSTORE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xen/xen_public.h"

/* The longest message: a header and XENSTORE_PAYLOAD_MAX bytes. */
#define XS_MSG_MAX (sizeof(struct xsd_sockmsg) + XENSTORE_PAYLOAD_MAX)

/* Room for the daemon's error names ("ENOENT", "ENOTEMPTY"); a longer
 * one is cut. */
#define XS_ERROR_NAME_MAX 32

/* Writes into out (XS_MSG_MAX bytes) a request, part of transaction tx_id
 * (0: none), whose payload is path and its NUL, then value when value is
 * not NULL: without a NUL (XS_WRITE's layout), or with one for XS_WATCH,
 * whose value is the token. Returns the message's length, or 0 if the
 * payload would be longer than XENSTORE_PAYLOAD_MAX. */
size_t xs_request_build(char *out, uint32_t type, uint32_t req_id, uint32_t tx_id, const char *path,
                        const char *value);

/* Copies as much of data[0..len) as the req ring has room for and
 * publishes it; returns the bytes copied (0 when the ring is full). */
size_t xs_ring_put(struct xenstore_domain_interface *intf, const char *data, size_t len);

/* Takes up to len bytes from the rsp ring into dst, or drops them when dst
 * is NULL, and hands their space back; returns the bytes taken. */
size_t xs_ring_take(struct xenstore_domain_interface *intf, char *dst, size_t len);

/* False when either ring claims more bytes in flight than it holds: the
 * other end broke the page. */
bool xs_rings_sane(const struct xenstore_domain_interface *intf);

/* A reply being received, possibly over several calls of xs_reply_take. */
struct xs_reply {
    uint32_t req_id;               /* the request's; other messages are skipped */
    char *buf;                     /* the caller's buffer for the payload */
    size_t cap;                    /* its size, the NUL included */
    struct xsd_sockmsg hdr;        /* the message now arriving */
    size_t got;                    /* its bytes taken so far, header included */
    size_t kept;                   /* its payload bytes stored */
    bool done;                     /* our reply is complete */
    unsigned watch_events;         /* watch events skipped on the way */
    char error[XS_ERROR_NAME_MAX]; /* an XS_ERROR reply's payload */
};

/* Starts receiving the reply to request req_id into buf[0..cap). */
void xs_reply_init(struct xs_reply *r, uint32_t req_id, char *buf, size_t cap);

/* Takes what the rsp ring holds of the reply, skipping messages that are
 * not it (watch events, stale replies). Returns NULL, r->done saying
 * whether the reply is complete, or why the stream cannot be read on. */
const char *xs_reply_take(struct xs_reply *r, struct xenstore_domain_interface *intf);

/* For a complete reply to a request of type type: NULL when the daemon
 * did it (buf then holds the payload and a NUL), the daemon's error name
 * ("ENOENT") for an XS_ERROR reply, or why the reply is unusable. */
const char *xs_reply_result(const struct xs_reply *r, uint32_t type);

#endif
