/* xen/xenstore_ring.c: the guest's end of the xenstore rings. A fake
 * daemon in this file reads requests from req and writes replies into
 * rsp; the tests check both rings' wrap-around (at the ring's end and at
 * 2^32), replies that arrive in pieces, error replies, replies longer
 * than the caller's buffer, messages that are not ours, and headers or
 * indexes the other end got wrong. Then xen/xenstore_txn.c over the same
 * ring: the read and the clear of control/shutdown in one transaction,
 * retried on EAGAIN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "xen/xenstore_ring.h"
#include "xen/xenstore_txn.h"

#define HDR sizeof(struct xsd_sockmsg)

static struct xenstore_domain_interface intf;
static char buf[64];
static struct xs_reply reply;

static int setup(void **state)
{
    (void)state;
    memset(&intf, 0, sizeof(intf));
    memset(buf, 0x5a, sizeof(buf));
    return 0;
}

/* The daemon reads n request bytes, wherever the ring has put them. */
static void daemon_read(void *out, size_t n)
{
    assert_true(intf.req_prod - intf.req_cons >= n);
    for (size_t i = 0; i < n; i++)
        ((char *)out)[i] = intf.req[MASK_XENSTORE_IDX(intf.req_cons + (XENSTORE_RING_IDX)i)];
    intf.req_cons += (XENSTORE_RING_IDX)n;
}

/* The daemon writes n reply bytes, or asserts they fit. */
static void daemon_write(const void *data, size_t n)
{
    assert_true(XENSTORE_RING_SIZE - (intf.rsp_prod - intf.rsp_cons) >= n);
    for (size_t i = 0; i < n; i++)
        intf.rsp[MASK_XENSTORE_IDX(intf.rsp_prod + (XENSTORE_RING_IDX)i)] = ((const char *)data)[i];
    intf.rsp_prod += (XENSTORE_RING_IDX)n;
}

/* A whole message, header and payload, as xenstored sends it. */
static size_t message(char *out, uint32_t type, uint32_t req_id, const void *payload, size_t len)
{
    struct xsd_sockmsg h = {.type = type, .req_id = req_id, .tx_id = 0, .len = (uint32_t)len};

    memcpy(out, &h, HDR);
    memcpy(out + HDR, payload, len);
    return HDR + len;
}

static void daemon_reply(uint32_t type, uint32_t req_id, const void *payload, size_t len)
{
    char m[HDR + 256];

    daemon_write(m, message(m, type, req_id, payload, len));
}

static void test_build_read_and_write(void **state)
{
    char out[XS_MSG_MAX];
    struct xsd_sockmsg h;

    (void)state;
    assert_int_equal(xs_request_build(out, XS_READ, 7, 0, "domid", NULL), HDR + 6);
    memcpy(&h, out, HDR);
    assert_int_equal(h.type, XS_READ);
    assert_int_equal(h.req_id, 7);
    assert_int_equal(h.tx_id, 0);
    assert_int_equal(h.len, 6);
    assert_memory_equal(out + HDR, "domid\0", 6);
    /* Xen ABI: XS_WRITE's payload is the path, its NUL, then the value
     * without one. */
    assert_int_equal(xs_request_build(out, XS_WRITE, 8, 0, "data/x", "42"), HDR + 9);
    memcpy(&h, out, HDR);
    assert_int_equal(h.type, XS_WRITE);
    assert_int_equal(h.len, 9);
    assert_memory_equal(out + HDR, "data/x", 7); /* the literal's NUL too */
    assert_memory_equal(out + HDR + 7, "42", 2);
}

static void test_build_refuses_oversized_payload(void **state)
{
    static char out[XS_MSG_MAX], path[XENSTORE_PAYLOAD_MAX + 1], value[XENSTORE_PAYLOAD_MAX];

    (void)state;
    memset(path, 'p', XENSTORE_PAYLOAD_MAX - 1); /* with its NUL, exactly the limit */
    assert_int_equal(xs_request_build(out, XS_READ, 1, 0, path, NULL), XS_MSG_MAX);
    path[XENSTORE_PAYLOAD_MAX - 1] = 'p'; /* one more */
    assert_int_equal(xs_request_build(out, XS_READ, 1, 0, path, NULL), 0);
    memset(value, 'v', XENSTORE_PAYLOAD_MAX - 2); /* "a", its NUL and this: the limit */
    assert_int_equal(xs_request_build(out, XS_WRITE, 1, 0, "a", value), XS_MSG_MAX);
    value[XENSTORE_PAYLOAD_MAX - 2] = 'v';
    assert_int_equal(xs_request_build(out, XS_WRITE, 1, 0, "a", value), 0);
}

/* A request that straddles the end of the req ring, then the index
 * wrapping at 2^32. */
static void test_request_ring_wraps(void **state)
{
    char out[XS_MSG_MAX], seen[XS_MSG_MAX];
    size_t n = xs_request_build(out, XS_WRITE, 3, 0, "data/patchbay-status", "0");

    (void)state;
    intf.req_cons = intf.req_prod = XENSTORE_RING_SIZE - 10;
    assert_int_equal(xs_ring_put(&intf, out, n), n);
    assert_int_equal(intf.req_prod, XENSTORE_RING_SIZE - 10 + n);
    assert_memory_equal(&intf.req[XENSTORE_RING_SIZE - 10], out, 10);
    assert_memory_equal(&intf.req[0], out + 10, n - 10);
    daemon_read(seen, n);
    assert_memory_equal(seen, out, n);

    intf.req_cons = intf.req_prod = 0xfffffff8u;
    assert_int_equal(xs_ring_put(&intf, out, n), n);
    assert_int_equal(intf.req_prod, (XENSTORE_RING_IDX)(0xfffffff8u + n));
    daemon_read(seen, n);
    assert_memory_equal(seen, out, n);
}

/* A full ring takes nothing; once the daemon reads, exactly that much. */
static void test_request_ring_full(void **state)
{
    static char big[2 * XENSTORE_RING_SIZE];

    (void)state;
    memset(big, 'r', sizeof(big));
    intf.req_cons = intf.req_prod = 0xfffffe00u;
    assert_int_equal(xs_ring_put(&intf, big, sizeof(big)), XENSTORE_RING_SIZE);
    assert_int_equal(xs_ring_put(&intf, big, 1), 0);
    intf.req_cons += 100;
    assert_int_equal(xs_ring_put(&intf, big, sizeof(big)), 100);
    assert_int_equal(intf.req_prod - intf.req_cons, XENSTORE_RING_SIZE);
}

static void test_read_reply(void **state)
{
    (void)state;
    xs_reply_init(&reply, 5, buf, sizeof(buf));
    daemon_reply(XS_READ, 5, "1", 1); /* a read's value carries no NUL */
    assert_null(xs_reply_take(&reply, &intf));
    assert_true(reply.done);
    assert_null(xs_reply_result(&reply, XS_READ));
    assert_string_equal(buf, "1");
    assert_int_equal(intf.rsp_cons, intf.rsp_prod);
}

/* A reply straddling the end of the rsp ring, header split included. */
static void test_reply_ring_wraps(void **state)
{
    (void)state;
    intf.rsp_cons = intf.rsp_prod = XENSTORE_RING_SIZE - 6;
    xs_reply_init(&reply, 9, buf, sizeof(buf));
    daemon_reply(XS_READ, 9, "/local/domain/3", 15);
    assert_null(xs_reply_take(&reply, &intf));
    assert_null(xs_reply_result(&reply, XS_READ));
    assert_string_equal(buf, "/local/domain/3");

    intf.rsp_cons = intf.rsp_prod = 0xfffffffcu;
    xs_reply_init(&reply, 10, buf, sizeof(buf));
    daemon_reply(XS_READ, 10, "wrapped", 7);
    assert_null(xs_reply_take(&reply, &intf));
    assert_null(xs_reply_result(&reply, XS_READ));
    assert_string_equal(buf, "wrapped");
    assert_int_equal(intf.rsp_cons, (XENSTORE_RING_IDX)(0xfffffffcu + HDR + 7));
}

/* The daemon writes a byte of header, the rest of it and half the
 * payload, then the end: each take keeps what came and waits for more. */
static void test_reply_in_pieces(void **state)
{
    char m[HDR + 16];
    size_t n = message(m, XS_READ, 4, "0123456789", 10);

    (void)state;
    xs_reply_init(&reply, 4, buf, sizeof(buf));
    assert_null(xs_reply_take(&reply, &intf));
    assert_false(reply.done);
    daemon_write(m, 1);
    assert_null(xs_reply_take(&reply, &intf));
    assert_false(reply.done);
    assert_int_equal(intf.rsp_cons, 1);
    daemon_write(m + 1, HDR - 1 + 5);
    assert_null(xs_reply_take(&reply, &intf));
    assert_false(reply.done);
    assert_string_equal(xs_reply_result(&reply, XS_READ), "reply incomplete");
    daemon_write(m + HDR + 5, n - HDR - 5);
    assert_null(xs_reply_take(&reply, &intf));
    assert_true(reply.done);
    assert_null(xs_reply_result(&reply, XS_READ));
    assert_string_equal(buf, "0123456789");
}

/* Xen ABI: a refused request gets XS_ERROR and an errno name with its
 * NUL. The name does not need the caller's buffer. */
static void test_error_reply(void **state)
{
    (void)state;
    xs_reply_init(&reply, 2, buf, 1);
    daemon_reply(XS_ERROR, 2, "ENOENT", 7);
    assert_null(xs_reply_take(&reply, &intf));
    assert_true(reply.done);
    assert_string_equal(xs_reply_result(&reply, XS_READ), "ENOENT");
    assert_int_equal((unsigned char)buf[0], 0x5a);
}

/* The caller gets the value's start and an error; the stream stays in
 * step, so the next reply reads whole. */
static void test_reply_longer_than_buffer(void **state)
{
    (void)state;
    xs_reply_init(&reply, 1, buf, 5);
    daemon_reply(XS_READ, 1, "abcdefghij", 10);
    daemon_reply(XS_READ, 2, "next", 4);
    assert_null(xs_reply_take(&reply, &intf));
    assert_string_equal(xs_reply_result(&reply, XS_READ), "reply longer than the buffer");
    assert_string_equal(buf, "abcd");
    assert_int_equal((unsigned char)buf[5], 0x5a);
    assert_int_equal(intf.rsp_prod - intf.rsp_cons, HDR + 4);
    xs_reply_init(&reply, 2, buf, sizeof(buf));
    assert_null(xs_reply_take(&reply, &intf));
    assert_null(xs_reply_result(&reply, XS_READ));
    assert_string_equal(buf, "next");
}

/* A value that exactly fills the buffer with its NUL is not cut. */
static void test_reply_exactly_fits(void **state)
{
    (void)state;
    xs_reply_init(&reply, 1, buf, 5);
    daemon_reply(XS_READ, 1, "abcd", 4);
    assert_null(xs_reply_take(&reply, &intf));
    assert_null(xs_reply_result(&reply, XS_READ));
    assert_string_equal(buf, "abcd");
}

/* A watch event and a stale reply come first: both are skipped whole. */
static void test_skips_messages_not_ours(void **state)
{
    (void)state;
    daemon_reply(XS_WATCH_EVENT, 0, "path\0token", 11);
    daemon_reply(XS_READ, 6, "stale", 5);
    daemon_reply(XS_WRITE, 7, "OK", 3);
    xs_reply_init(&reply, 7, buf, sizeof(buf));
    assert_null(xs_reply_take(&reply, &intf));
    assert_true(reply.done);
    assert_null(xs_reply_result(&reply, XS_WRITE));
    assert_string_equal(buf, "OK");
    assert_int_equal(intf.rsp_cons, intf.rsp_prod);
    assert_int_equal(reply.watch_events, 1); /* the watch event is counted, the stale reply not */
}

/* Xen ABI: XS_WATCH's payload is two strings, each with its NUL. */
static void test_build_watch(void **state)
{
    char out[XS_MSG_MAX];
    struct xsd_sockmsg h;

    (void)state;
    assert_int_equal(xs_request_build(out, XS_WATCH, 9, 0, "control/shutdown", "lc"), HDR + 17 + 3);
    memcpy(&h, out, HDR);
    assert_int_equal(h.type, XS_WATCH);
    assert_int_equal(h.len, 20);
    assert_memory_equal(out + HDR, "control/shutdown\0lc\0", 20);
}

/* Events with no request waiting: a reply state with no buffer drops them. */
static void test_watch_events_alone(void **state)
{
    (void)state;
    daemon_reply(XS_WATCH_EVENT, 0, "control/shutdown\0lc", 20);
    daemon_reply(XS_WATCH_EVENT, 0, "control/shutdown\0lc", 20);
    xs_reply_init(&reply, 0, NULL, 0);
    assert_null(xs_reply_take(&reply, &intf));
    assert_false(reply.done);
    assert_int_equal(reply.watch_events, 2);
    assert_int_equal(reply.got, 0);
    assert_int_equal(intf.rsp_cons, intf.rsp_prod);
}

static void test_reply_of_wrong_type(void **state)
{
    (void)state;
    xs_reply_init(&reply, 1, buf, sizeof(buf));
    daemon_reply(XS_DIRECTORY, 1, "a\0b", 4);
    assert_null(xs_reply_take(&reply, &intf));
    assert_string_equal(xs_reply_result(&reply, XS_READ), "reply of another type than the request");
}

/* A len beyond XENSTORE_PAYLOAD_MAX: the stream has no other delimiter,
 * so this is an error, not a wait for bytes that never come. */
static void test_malformed_header(void **state)
{
    struct xsd_sockmsg h = {.type = XS_READ, .req_id = 1, .len = XENSTORE_PAYLOAD_MAX + 1};
    const char *err;

    (void)state;
    xs_reply_init(&reply, 1, buf, sizeof(buf));
    daemon_write(&h, HDR);
    err = xs_reply_take(&reply, &intf);
    assert_non_null(err);
    assert_string_equal(err, "reply header's len beyond XENSTORE_PAYLOAD_MAX (4096)");
    assert_false(reply.done);

    /* Exactly the limit is allowed: the reply is then merely unfinished. */
    setup(state);
    h.len = XENSTORE_PAYLOAD_MAX;
    xs_reply_init(&reply, 1, buf, sizeof(buf));
    daemon_write(&h, HDR);
    assert_null(xs_reply_take(&reply, &intf));
    assert_false(reply.done);
}

static void test_broken_indexes(void **state)
{
    (void)state;
    xs_reply_init(&reply, 1, buf, sizeof(buf));
    intf.rsp_cons = 10;
    intf.rsp_prod = 10 + XENSTORE_RING_SIZE + 1;
    assert_false(xs_rings_sane(&intf));
    assert_string_equal(xs_reply_take(&reply, &intf), "ring indexes broken by the other end");
    assert_int_equal(intf.rsp_cons, 10);
    setup(state);
    intf.req_cons = 5;
    intf.req_prod = 4; /* the daemon read past what we wrote */
    assert_false(xs_rings_sane(&intf));
    assert_int_equal(xs_ring_put(&intf, "x", 1), 0);
    assert_int_equal(intf.req_prod, 4);
}

/* A daemon that keeps one node and answers transactions, logging every
 * request it reads; its TRANSACTION_END answers EAGAIN while eagain_left
 * lasts. A write inside a transaction lands only when it commits. */
#define LOG_MAX 64
static struct {
    bool exists;
    char node[16];
    char pending[16];
    bool written;
    unsigned eagain_left;
    uint32_t next_tx;
    size_t count;
    struct {
        uint32_t type, tx_id;
        char payload[32];
        size_t len;
    } log[LOG_MAX];
} store;

static void store_answer(const struct xsd_sockmsg *h, const char *payload)
{
    char id[16];

    switch (h->type) {
    case XS_TRANSACTION_START:
        snprintf(id, sizeof(id), "%u", (unsigned)store.next_tx++);
        daemon_reply(XS_TRANSACTION_START, h->req_id, id, strlen(id) + 1);
        store.written = false;
        return;
    case XS_READ:
        if (store.exists)
            daemon_reply(XS_READ, h->req_id, store.node, strlen(store.node));
        else
            daemon_reply(XS_ERROR, h->req_id, "ENOENT", 7);
        return;
    case XS_WRITE:
        snprintf(store.pending, sizeof(store.pending), "%.*s", (int)(h->len - strlen(payload) - 1),
                 payload + strlen(payload) + 1);
        store.written = true;
        daemon_reply(XS_WRITE, h->req_id, "OK", 3);
        return;
    case XS_TRANSACTION_END:
        if (store.eagain_left > 0) {
            store.eagain_left--;
            daemon_reply(XS_ERROR, h->req_id, "EAGAIN", 7);
            return;
        }
        if (payload[0] == 'T' && store.written)
            strcpy(store.node, store.pending);
        daemon_reply(XS_TRANSACTION_END, h->req_id, "OK", 3);
        return;
    default:
        fail_msg("request of type %u", (unsigned)h->type);
    }
}

/* The exchange xenstore.c makes, over the ring, with the daemon's turn
 * between the request and the reply. */
static const char *store_exchange(void *ctx, uint32_t type, uint32_t tx_id, const char *path,
                                  const char *value, char *out, size_t len)
{
    static uint32_t req_id;
    char msg[XS_MSG_MAX], payload[XENSTORE_PAYLOAD_MAX + 1] = {0};
    size_t n = xs_request_build(msg, type, ++req_id, tx_id, path, value);
    struct xsd_sockmsg h;
    static struct xs_reply r; /* as xenstore.c's: an error name lasts until the next call */

    assert_ptr_equal(ctx, &store);
    assert_int_equal(xs_ring_put(&intf, msg, n), n);
    daemon_read(&h, HDR);
    daemon_read(payload, h.len);
    assert_true(store.count < LOG_MAX);
    store.log[store.count].type = h.type;
    store.log[store.count].tx_id = h.tx_id;
    store.log[store.count].len = h.len;
    memcpy(store.log[store.count].payload, payload, h.len < 32 ? h.len : 32);
    store.count++;
    store_answer(&h, payload);
    xs_reply_init(&r, req_id, out, len);
    assert_null(xs_reply_take(&r, &intf));
    assert_true(r.done);
    return xs_reply_result(&r, type);
}

static void store_reset(const char *node, unsigned eagain)
{
    memset(&store, 0, sizeof(store));
    store.exists = node != NULL;
    snprintf(store.node, sizeof(store.node), "%s", node ? node : "");
    store.eagain_left = eagain;
    store.next_tx = 5;
}

/* Request i of the log: its type, transaction and payload. */
static void expect_logged(size_t i, uint32_t type, uint32_t tx_id, const char *payload, size_t len)
{
    assert_true(i < store.count);
    assert_int_equal(store.log[i].type, type);
    assert_int_equal(store.log[i].tx_id, tx_id);
    assert_int_equal(store.log[i].len, len);
    assert_memory_equal(store.log[i].payload, payload, len);
}

static void expect_take_error(const char *want)
{
    const char *err = xs_take_node(store_exchange, &store, "control/shutdown", buf, sizeof(buf));

    assert_non_null(err);
    assert_string_equal(err, want);
}

/* One try of the read and the clear: start, then both in the
 * transaction the daemon named, then commit. */
static void expect_try(size_t first, uint32_t tx_id)
{
    expect_logged(first, XS_TRANSACTION_START, 0, "", 1);
    expect_logged(first + 1, XS_READ, tx_id, "control/shutdown", 17);
    expect_logged(first + 2, XS_WRITE, tx_id, "control/shutdown", 17);
    expect_logged(first + 3, XS_TRANSACTION_END, tx_id, "T", 2);
}

static void test_take_in_one_transaction(void **state)
{
    (void)state;
    store_reset("suspend", 0);
    assert_null(xs_take_node(store_exchange, &store, "control/shutdown", buf, sizeof(buf)));
    assert_string_equal(buf, "suspend");
    assert_int_equal(store.count, 4);
    expect_try(0, 5);
    assert_string_equal(store.node, "");
    assert_int_equal(intf.rsp_cons, intf.rsp_prod);
    assert_int_equal(intf.req_cons, intf.req_prod);
}

/* Xen ABI (xenstore.txt): EAGAIN from TRANSACTION_END means nothing was
 * done; the whole transaction is tried again, read first. */
static void test_take_retries_on_eagain(void **state)
{
    (void)state;
    store_reset("poweroff", 2);
    assert_null(xs_take_node(store_exchange, &store, "control/shutdown", buf, sizeof(buf)));
    assert_string_equal(buf, "poweroff");
    assert_int_equal(store.count, 12);
    expect_try(0, 5);
    expect_try(4, 6);
    expect_try(8, 7);
    assert_string_equal(store.node, "");
}

/* Past XS_TXN_TRIES tries the EAGAIN is the answer, and nothing was read. */
static void test_take_gives_up(void **state)
{
    (void)state;
    store_reset("reboot", 1000);
    expect_take_error("EAGAIN");
    assert_string_equal(buf, "");
    assert_int_equal(store.count, 4 * XS_TXN_TRIES);
    expect_try(4 * (XS_TXN_TRIES - 1), 5 + XS_TXN_TRIES - 1);
    assert_string_equal(store.node, "reboot");
}

/* Nothing to clear, or no node: the transaction is aborted, not left open. */
static void test_take_empty_or_missing(void **state)
{
    (void)state;
    store_reset("", 0);
    assert_null(xs_take_node(store_exchange, &store, "control/shutdown", buf, sizeof(buf)));
    assert_string_equal(buf, "");
    assert_int_equal(store.count, 3);
    expect_logged(0, XS_TRANSACTION_START, 0, "", 1);
    expect_logged(1, XS_READ, 5, "control/shutdown", 17);
    expect_logged(2, XS_TRANSACTION_END, 5, "F", 2);
    store_reset(NULL, 0);
    expect_take_error("ENOENT");
    assert_string_equal(buf, "");
    assert_int_equal(store.count, 3);
    expect_logged(2, XS_TRANSACTION_END, 5, "F", 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_build_read_and_write, setup),
        cmocka_unit_test_setup(test_build_refuses_oversized_payload, setup),
        cmocka_unit_test_setup(test_request_ring_wraps, setup),
        cmocka_unit_test_setup(test_request_ring_full, setup),
        cmocka_unit_test_setup(test_read_reply, setup),
        cmocka_unit_test_setup(test_reply_ring_wraps, setup),
        cmocka_unit_test_setup(test_reply_in_pieces, setup),
        cmocka_unit_test_setup(test_error_reply, setup),
        cmocka_unit_test_setup(test_reply_longer_than_buffer, setup),
        cmocka_unit_test_setup(test_reply_exactly_fits, setup),
        cmocka_unit_test_setup(test_skips_messages_not_ours, setup),
        cmocka_unit_test_setup(test_build_watch, setup),
        cmocka_unit_test_setup(test_watch_events_alone, setup),
        cmocka_unit_test_setup(test_reply_of_wrong_type, setup),
        cmocka_unit_test_setup(test_malformed_header, setup),
        cmocka_unit_test_setup(test_broken_indexes, setup),
        cmocka_unit_test_setup(test_take_in_one_transaction, setup),
        cmocka_unit_test_setup(test_take_retries_on_eagain, setup),
        cmocka_unit_test_setup(test_take_gives_up, setup),
        cmocka_unit_test_setup(test_take_empty_or_missing, setup),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("xen_xenstore", tests, NULL, NULL);
}
