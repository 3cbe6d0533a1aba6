/* Reading a xenstore node and clearing it as one step: two requests in
 * one transaction (Xen's docs/misc/xenstore.txt), so a value written
 * between the read and the clear is not wiped unseen. Pure code over an
 * exchange function, so a host test can play the daemon; xen/xenstore.c
 * supplies the one over the ring. */
#ifndef XEN_XENSTORE_TXN_H
#define XEN_XENSTORE_TXN_H

#include <stddef.h>
#include <stdint.h>

/* Tries of the whole transaction while the daemon answers its end with
 * EAGAIN (another writer touched the node). */
#define XS_TXN_TRIES 8

/* One request of type type in transaction tx_id (0: none), built as
 * xs_request_build() does, and its reply into buf[0..len); NULL or an
 * error phrase, as xenstore_read() returns. */
typedef const char *(*xs_exchange_fn)(void *ctx, uint32_t type, uint32_t tx_id, const char *path,
                                      const char *value, char *buf, size_t len);

/* Starts a transaction: *tx_id its id, never 0; NULL or an error. */
const char *xs_transaction_start(xs_exchange_fn exchange, void *ctx, uint32_t *tx_id);

/* Reads path into buf[0..len) and, unless it is empty, writes "" over it,
 * in one transaction retried on EAGAIN; NULL or an error, valid until the
 * next call. On an error buf holds nothing to act on. */
const char *xs_take_node(xs_exchange_fn exchange, void *ctx, const char *path, char *buf,
                         size_t len);

#endif
