/* A domU's xenstore client: one request at a time over the ring page and
 * event channel its start info names (xen/xenstore_ring.c has the pure ring
 * code); a thread waits its turn, a trap or a caller with interrupts off
 * fails at once while another request is under way. Every call is bounded
 * in time, and callable with events masked or from a trap; none panics. Errors are phrases to print: the daemon's
 * own error name ("ENOENT", "EACCES", valid until the next call) or what
 * went wrong locally. A
 * relative path is under the domain's home, /local/domain/<domid>/. */
#ifndef XEN_XENSTORE_H
#define XEN_XENSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xen/xen_public.h"

/* Connects to the ring xen_domain names, once; NULL, or why there is none
 * to use (dom0 has none at boot). */
const char *xenstore_init(void);

/* Connects again after a resume: the ring and its port are the new
 * domain's, and what the old domain's daemon left unread is dropped. */
const char *xenstore_resume(void);

/* Reads the node's value into buf[0..len) with a NUL; NULL or an error.
 * A value that does not fit is an error (buf then holds its start). */
const char *xenstore_read(const char *path, char *buf, size_t len);

/* Reads the node's value into buf[0..len) as xenstore_read() does and,
 * unless it is empty, empties it, in one transaction: a request written
 * after the read is not wiped unread. NULL or an error (buf then empty). */
const char *xenstore_take(const char *path, char *buf, size_t len);

/* Sets the node to value, creating it; NULL or an error. */
const char *xenstore_write(const char *path, const char *value);

/* Asks the daemon to fire a watch event whenever path or a node below it
 * changes, and once at once; NULL or an error. A new domain's daemon
 * knows no watch of the old one's: set it again after a resume. */
const char *xenstore_watch(const char *path, const char *token);

/* Whether a watch event has arrived since the last call. Never waits for
 * one; events that come during another request are noted then. */
bool xenstore_watch_fired(void);

/* Transactions: several reads and writes the daemon applies together or
 * not at all. Ending one with commit may fail with "EAGAIN" (another
 * writer came between): the caller starts over. tx 0 is no transaction. */
const char *xenstore_transaction_start(uint32_t *tx);
const char *xenstore_transaction_end(uint32_t tx, bool commit);
const char *xenstore_write_tx(uint32_t tx, const char *path, const char *value);

/* The node's children, NUL-separated, into buf[0..len); NULL or an error. */
const char *xenstore_directory(const char *path, char *buf, size_t len);

/* The store's event channel, for a caller that waits on watches with
 * xen_wait (xen/backend.h): the daemon notifies it for every watch event. */
evtchn_port_t xenstore_port(void);

#endif
