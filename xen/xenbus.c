/* xenbus over the xenstore client. A wait sets a watch on the backend's
 * state and then reads the state each time the store's port fires (the
 * daemon notifies it for every watch event), so it reacts at once and
 * still gives up on time. */
#include "xen/xenbus.h"

#include "kernel/printf.h"
#include "kernel/string.h"
#include "xen/backend.h"
#include "xen/xenstore.h"

#define PUBLISH_TRIES 16 /* EAGAIN only when another writer raced us */

static const char *parse_number(const char *s, uint64_t *v)
{
    uint64_t n = 0;

    if (!*s)
        return "empty where a number belongs";
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || n > UINT64_MAX / 10)
            return "not a number";
        n = n * 10 + (uint64_t)(*s - '0');
    }
    *v = n;
    return NULL;
}

static const char *read_number(const char *path, uint64_t *v)
{
    char buf[24];
    const char *err = xenstore_read(path, buf, sizeof(buf));

    return err ? err : parse_number(buf, v);
}

/* Our node and what it says of its backend. */
static const char *read_device(struct xenbus_device *d, const char *type, const char *id)
{
    char path[80];
    uint64_t backend_id;
    const char *err;

    ksnprintf(d->node, sizeof(d->node), "device/%s/%s", type, id);
    ksnprintf(path, sizeof(path), "%s/backend", d->node);
    err = xenstore_read(path, d->backend, sizeof(d->backend));
    ksnprintf(path, sizeof(path), "%s/backend-id", d->node);
    if (!err)
        err = read_number(path, &backend_id);
    if (!err && backend_id >= DOMID_FIRST_RESERVED)
        err = "backend-id is not a domain";
    if (err)
        return err;
    d->backend_id = (domid_t)backend_id;
    d->state = XenbusStateInitialising;
    return NULL;
}

/* Xen ABI (xs_wire.h): a directory's reply is its children's names, each
 * with its NUL. */
const char *xenbus_find(const char *type, const char *id, struct xenbus_device *d, bool *found)
{
    char path[32], names[256];
    const char *err = xenstore_init();

    *found = false;
    memset(d, 0, sizeof(*d));
    if (err)
        return err;
    ksnprintf(path, sizeof(path), "device/%s", type);
    err = xenstore_directory(path, names, sizeof(names));
    if (err)
        return strcmp(err, "ENOENT") == 0 ? NULL : err;
    if (!names[0])
        return NULL;
    if (id) {
        const char *p = names;
        while (*p && strcmp(p, id) != 0)
            p += strlen(p) + 1;
        if (!*p)
            return NULL;
    }
    *found = true;
    return read_device(d, type, id ? id : names);
}

const char *xenbus_switch(struct xenbus_device *d, enum xenbus_state to)
{
    char path[64], value[4];
    const char *err;

    if (!xenbus_front_move_allowed(d->state, to))
        return "a state change the handshake does not allow";
    ksnprintf(path, sizeof(path), "%s/state", d->node);
    ksnprintf(value, sizeof(value), "%d", (int)to);
    err = xenstore_write(path, value);
    if (!err)
        d->state = to;
    return err;
}

const char *xenbus_backend_state(const struct xenbus_device *d, enum xenbus_state *back)
{
    char path[160];
    uint64_t v;
    const char *err;

    ksnprintf(path, sizeof(path), "%s/state", d->backend);
    err = read_number(path, &v);
    if (err && strcmp(err, "ENOENT") == 0) {
        v = XenbusStateUnknown; /* the backend's directory not made yet */
        err = NULL;
    }
    *back = v > 255 ? 255 : (enum xenbus_state)v;
    return err;
}

const char *xenbus_wait_backend(struct xenbus_device *d, uint64_t timeout_ns,
                                enum xenbus_state *back)
{
    static char why[224];
    char path[160];
    struct xen_wait w;
    const char *err;

    ksnprintf(path, sizeof(path), "%s/state", d->backend);
    err = xenstore_watch(path, d->node);
    if (err && strcmp(err, "EEXIST") != 0) /* the previous wait's watch is still set */
        return err;
    xen_wait_start(&w, xenstore_port(), timeout_ns);
    for (;;) {
        err = xenbus_backend_state(d, back);
        if (err || xenbus_front_action(d->state, *back) != XENBUS_WAIT)
            return err;
        if (!xen_wait_event(&w))
            break;
    }
    ksnprintf(why, sizeof(why), "backend %s stayed %s for %lu s (we are %s)", d->backend,
              xenbus_state_name(*back), (unsigned long)(timeout_ns / 1000000000u),
              xenbus_state_name(d->state));
    return why;
}

const char *xenbus_backend_number(const struct xenbus_device *d, const char *key, uint64_t def,
                                  uint64_t *v)
{
    char path[192];
    const char *err;

    ksnprintf(path, sizeof(path), "%s/%s", d->backend, key);
    err = read_number(path, v);
    if (err && strcmp(err, "ENOENT") == 0) {
        *v = def;
        return NULL;
    }
    return err;
}

static const char *publish_once(const struct xenbus_device *d, const char *const *keys,
                                const char *const *values, unsigned n)
{
    uint32_t tx;
    const char *err = xenstore_transaction_start(&tx);

    if (err)
        return err;
    for (unsigned i = 0; !err && i < n; i++) {
        char path[96];
        ksnprintf(path, sizeof(path), "%s/%s", d->node, keys[i]);
        err = xenstore_write_tx(tx, path, values[i]);
    }
    if (err) {
        xenstore_transaction_end(tx, false);
        return err;
    }
    return xenstore_transaction_end(tx, true);
}

const char *xenbus_publish(const struct xenbus_device *d, const char *const *keys,
                           const char *const *values, unsigned n)
{
    const char *err = "EAGAIN";

    for (unsigned tries = 0; tries < PUBLISH_TRIES && err && strcmp(err, "EAGAIN") == 0; tries++)
        err = publish_once(d, keys, values, n);
    return err;
}
