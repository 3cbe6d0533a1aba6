/* A frontend's side of xenbus: its device directory in xenstore
 * (device/<type>/<id>), its state there moved through the handshake with
 * the backend's (xen/xenbus_state.h), the backend's features, and its own
 * keys written together in one transaction. Every wait is bounded: a
 * backend that never answers ends in an error, never a hang. Errors are
 * phrases to print, as xenstore's are. */
#ifndef XEN_XENBUS_H
#define XEN_XENBUS_H

#include <stdbool.h>
#include <stdint.h>

#include "xen/xenbus_state.h"

struct xenbus_device {
    char node[48];     /* ours: "device/vbd/51712", under our home */
    char backend[128]; /* the backend's directory, an absolute path */
    domid_t backend_id;
    enum xenbus_state state; /* ours, as last written */
};

/* Finds device/<type>/<id> (the first there when id is NULL) and its
 * backend. NULL, or why not; *found false (and NULL) when there is none. */
const char *xenbus_find(const char *type, const char *id, struct xenbus_device *d, bool *found);

/* Moves our state, as the table allows; NULL or why not. */
const char *xenbus_switch(struct xenbus_device *d, enum xenbus_state to);

/* The backend's state now (Unknown while it has none); NULL or an error. */
const char *xenbus_backend_state(const struct xenbus_device *d, enum xenbus_state *back);

/* Waits up to timeout_ns for the backend to be in a state that asks
 * something of us (an action other than XENBUS_WAIT), which *back holds;
 * NULL, or why not (a time-out names the state it stayed in). */
const char *xenbus_wait_backend(struct xenbus_device *d, uint64_t timeout_ns,
                                enum xenbus_state *back);

/* The backend's key as a number; def when it has none. NULL or an error. */
const char *xenbus_backend_number(const struct xenbus_device *d, const char *key, uint64_t def,
                                  uint64_t *v);

/* Writes node/keys[i] = values[i] for every i in one transaction, started
 * over while the daemon answers EAGAIN; NULL or an error. */
const char *xenbus_publish(const struct xenbus_device *d, const char *const *keys,
                           const char *const *values, unsigned n);

#endif
