#include "xen/blkif.h"

/* Xen ABI (io/blkif.h): the response echoes the request's id and
 * operation; status is one of the three BLKIF_RSP_* values. An id we did
 * not give, or gave and got back already, fails nothing: the request it
 * might have been is still waiting for its own. */
const char *blkif_response_check(const struct blkif_response *rsp, const struct blkif_slot *slots,
                                 unsigned nslots, int *id, enum block_status *status)
{
    uint64_t rid = rsp->id;

    *id = -1;
    *status = BLOCK_EINVAL;
    if (rid >= nslots)
        return "response with an id we never gave";
    if (!slots[rid].busy)
        return "response with an id not in flight";
    *id = (int)rid;
    if (rsp->operation != slots[rid].operation)
        return "response with another operation than its request";
    switch (rsp->status) {
    case BLKIF_RSP_OKAY:
        *status = BLOCK_OK;
        return NULL;
    case BLKIF_RSP_ERROR:
    case BLKIF_RSP_EOPNOTSUPP: /* a flush the disk below cannot do */
        *status = BLOCK_EIO;
        return NULL;
    default:
        return "response with a status that is not a BLKIF_RSP_ value";
    }
}
