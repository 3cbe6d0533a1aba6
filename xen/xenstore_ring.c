#include "xen/xenstore_ring.h"

#include "kernel/compiler.h"
#include "kernel/string.h"

#define HDR_SIZE sizeof(struct xsd_sockmsg)

/* Xen ABI: the indexes run freely over all 32-bit values; their difference
 * is the fill level and MASK_XENSTORE_IDX() the offset, which works only
 * for a power-of-two ring. */
_Static_assert((XENSTORE_RING_SIZE & (XENSTORE_RING_SIZE - 1)) == 0,
               "the xenstore ring size must be a power of two");
_Static_assert(sizeof(((struct xenstore_domain_interface *)0)->req) == XENSTORE_RING_SIZE &&
                   sizeof(((struct xenstore_domain_interface *)0)->rsp) == XENSTORE_RING_SIZE,
               "both rings are XENSTORE_RING_SIZE bytes");

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* The payload is built in place after the header, so a too-long request
 * is refused before anything past out[XS_MSG_MAX) could be written. */
size_t xs_request_build(char *out, uint32_t type, uint32_t req_id, uint32_t tx_id, const char *path,
                        const char *value)
{
    size_t path_len = strlen(path) + 1; /* the NUL ends the path */
    /* Xen ABI (xs_wire.h): XS_WRITE's value runs to the end of the
     * payload, XS_WATCH's token is a string of its own, with its NUL. */
    size_t value_len = value ? strlen(value) + (type == XS_WATCH) : 0;
    struct xsd_sockmsg hdr = {.type = type, .req_id = req_id, .tx_id = tx_id};

    if (path_len > XENSTORE_PAYLOAD_MAX || value_len > XENSTORE_PAYLOAD_MAX - path_len)
        return 0;
    hdr.len = (uint32_t)(path_len + value_len);
    memcpy(out, &hdr, HDR_SIZE);
    memcpy(out + HDR_SIZE, path, path_len);
    if (value_len)
        memcpy(out + HDR_SIZE + path_len, value, value_len);
    return HDR_SIZE + hdr.len;
}

/* Bytes in flight on one ring, or more than the ring holds if the indexes
 * are garbage. */
static XENSTORE_RING_IDX in_flight(const XENSTORE_RING_IDX *prod, const XENSTORE_RING_IDX *cons)
{
    return __atomic_load_n(prod, __ATOMIC_ACQUIRE) - __atomic_load_n(cons, __ATOMIC_ACQUIRE);
}

bool xs_rings_sane(const struct xenstore_domain_interface *intf)
{
    return in_flight(&intf->req_prod, &intf->req_cons) <= XENSTORE_RING_SIZE &&
           in_flight(&intf->rsp_prod, &intf->rsp_cons) <= XENSTORE_RING_SIZE;
}

/* We are the req ring's only producer: req_prod is ours to read plainly. */
size_t xs_ring_put(struct xenstore_domain_interface *intf, const char *data, size_t len)
{
    XENSTORE_RING_IDX prod = intf->req_prod;
    /* Xen ring rule: read req_cons before writing the space it frees. */
    XENSTORE_RING_IDX used = prod - __atomic_load_n(&intf->req_cons, __ATOMIC_ACQUIRE);
    size_t n = used > XENSTORE_RING_SIZE ? 0 : min_size(len, XENSTORE_RING_SIZE - used);

    for (size_t i = 0; i < n; i++)
        intf->req[MASK_XENSTORE_IDX(prod + (XENSTORE_RING_IDX)i)] = data[i];
    /* Xen ring rule: the bytes must be visible before the req_prod that
     * hands them over. */
    __atomic_store_n(&intf->req_prod, prod + (XENSTORE_RING_IDX)n, __ATOMIC_RELEASE);
    return n;
}

/* We are the rsp ring's only consumer: rsp_cons is ours to read plainly. */
size_t xs_ring_take(struct xenstore_domain_interface *intf, char *dst, size_t len)
{
    XENSTORE_RING_IDX cons = intf->rsp_cons;
    /* Xen ring rule: read rsp_prod before the bytes it covers. */
    XENSTORE_RING_IDX avail = __atomic_load_n(&intf->rsp_prod, __ATOMIC_ACQUIRE) - cons;
    size_t n = avail > XENSTORE_RING_SIZE ? 0 : min_size(len, avail);

    for (size_t i = 0; dst && i < n; i++)
        dst[i] = intf->rsp[MASK_XENSTORE_IDX(cons + (XENSTORE_RING_IDX)i)];
    /* Xen ring rule: finish reading the bytes before rsp_cons gives their
     * space back to the daemon. */
    __atomic_store_n(&intf->rsp_cons, cons + (XENSTORE_RING_IDX)n, __ATOMIC_RELEASE);
    return n;
}

void xs_reply_init(struct xs_reply *r, uint32_t req_id, char *buf, size_t cap)
{
    memset(r, 0, sizeof(*r));
    r->req_id = req_id;
    r->buf = buf;
    r->cap = cap;
}

/* Watch events and replies to other requests share the ring with ours. */
static bool message_is_ours(const struct xs_reply *r)
{
    return r->hdr.req_id == r->req_id && r->hdr.type != XS_WATCH_EVENT;
}

/* Where an XS_ERROR reply's name goes, or else the caller's buffer. */
static char *payload_buffer(struct xs_reply *r, size_t *cap)
{
    *cap = r->hdr.type == XS_ERROR ? sizeof(r->error) : r->cap;
    return r->hdr.type == XS_ERROR ? r->error : r->buf;
}

/* Where the message's next payload byte is kept and how many more fit
 * there, one byte being saved for the NUL; *room 0 means drop it. */
static char *payload_slot(struct xs_reply *r, size_t *room)
{
    size_t cap;
    char *base = payload_buffer(r, &cap);

    *room = message_is_ours(r) && r->kept + 1 < cap ? cap - 1 - r->kept : 0;
    return *room ? base + r->kept : NULL;
}

/* Takes payload bytes, keeping those that fit and dropping the rest, so
 * the stream stays in step whatever the caller's buffer holds. */
static size_t take_payload(struct xs_reply *r, struct xenstore_domain_interface *intf)
{
    size_t left = HDR_SIZE + r->hdr.len - r->got, room;
    char *slot = payload_slot(r, &room);
    size_t n = xs_ring_take(intf, slot, room ? min_size(left, room) : left);

    r->got += n;
    if (room)
        r->kept += n;
    return n;
}

/* Our reply ends the receive; any other message is forgotten. */
static void end_message(struct xs_reply *r)
{
    size_t cap;
    char *base = payload_buffer(r, &cap);

    if (message_is_ours(r)) {
        if (cap > 0)
            base[r->kept] = '\0';
        r->done = true;
        return;
    }
    if (r->hdr.type == XS_WATCH_EVENT)
        r->watch_events++;
    memset(&r->hdr, 0, sizeof(r->hdr));
    r->got = r->kept = 0;
}

/* The header may arrive in pieces too. */
static size_t take_header(struct xs_reply *r, struct xenstore_domain_interface *intf)
{
    size_t n = xs_ring_take(intf, (char *)&r->hdr + r->got, HDR_SIZE - r->got);

    r->got += n;
    return n;
}

const char *xs_reply_take(struct xs_reply *r, struct xenstore_domain_interface *intf)
{
    while (!r->done) {
        size_t n;
        if (!xs_rings_sane(intf))
            return "ring indexes broken by the other end";
        n = r->got < HDR_SIZE ? take_header(r, intf) : take_payload(r, intf);
        /* Xen ABI: no message's payload exceeds XENSTORE_PAYLOAD_MAX;
         * past the header, len is all that delimits messages. */
        if (r->got == HDR_SIZE && r->hdr.len > XENSTORE_PAYLOAD_MAX)
            return "reply header's len beyond XENSTORE_PAYLOAD_MAX "
                   "(" STRINGIFY(XENSTORE_PAYLOAD_MAX) ")";
        if (r->got >= HDR_SIZE && r->got == HDR_SIZE + r->hdr.len)
            end_message(r);
        else if (n == 0)
            break; /* the rest has not arrived yet */
    }
    return NULL;
}

/* The daemon answers a request with its own type, or with XS_ERROR and
 * an error name. */
const char *xs_reply_result(const struct xs_reply *r, uint32_t type)
{
    if (!r->done)
        return "reply incomplete";
    if (r->hdr.type == XS_ERROR)
        return r->error[0] ? r->error : "XS_ERROR without an error name";
    if (r->hdr.type != type)
        return "reply of another type than the request";
    if (r->kept < r->hdr.len)
        return "reply longer than the buffer";
    return NULL;
}
