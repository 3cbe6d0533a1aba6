#include "xen/xenstore_txn.h"

#include <stdbool.h>

#include "kernel/string.h"
#include "xen/xen_public.h"

/* Xen ABI (xenstore.txt): TRANSACTION_START's reply is the id in decimal. */
const char *xs_transaction_start(xs_exchange_fn exchange, void *ctx, uint32_t *tx_id)
{
    char id[16];
    const char *err = exchange(ctx, XS_TRANSACTION_START, 0, "", NULL, id, sizeof(id));
    uint64_t v = 0;

    if (err)
        return err;
    for (const char *p = id; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (v == 0 || v > UINT32_MAX) /* 0 is no transaction */
        return "transaction id not a number";
    *tx_id = (uint32_t)v;
    return NULL;
}

/* Xen ABI (xenstore.txt): TRANSACTION_END takes "T" to commit, "F" to abort. */
static const char *end(xs_exchange_fn exchange, void *ctx, uint32_t tx_id, bool commit)
{
    char ok[8];

    return exchange(ctx, XS_TRANSACTION_END, tx_id, commit ? "T" : "F", NULL, ok, sizeof(ok));
}

/* An exchange's error may last only until its next call, and the abort
 * is one: the error is copied first (a long phrase is cut). */
static const char *keep(const char *err)
{
    static char kept[80];
    size_t n = 0;

    for (; n < sizeof(kept) - 1 && err[n]; n++)
        kept[n] = err[n];
    kept[n] = '\0';
    return kept;
}

/* One try: an error in the middle aborts, so the daemon keeps no
 * transaction of ours open. */
static const char *try_take(xs_exchange_fn exchange, void *ctx, const char *path, char *buf,
                            size_t len)
{
    uint32_t tx_id;
    char ok[8];
    const char *err = xs_transaction_start(exchange, ctx, &tx_id);

    if (err)
        return err;
    err = exchange(ctx, XS_READ, tx_id, path, NULL, buf, len);
    if (!err && buf[0] != '\0')
        err = exchange(ctx, XS_WRITE, tx_id, path, "", ok, sizeof(ok));
    if (err || buf[0] == '\0') {
        err = err ? keep(err) : NULL;
        end(exchange, ctx, tx_id, false);
        return err;
    }
    return end(exchange, ctx, tx_id, true);
}

const char *xs_take_node(xs_exchange_fn exchange, void *ctx, const char *path, char *buf,
                         size_t len)
{
    const char *err = "no room for a value";

    for (unsigned i = 0; len > 0 && i < XS_TXN_TRIES; i++) {
        err = try_take(exchange, ctx, path, buf, len);
        if (!err || strcmp(err, "EAGAIN") != 0)
            break;
    }
    if (err && len > 0)
        buf[0] = '\0';
    return err;
}
