/* Xen's block-device ring (<xen/io/blkif.h>, its ring from <xen/io/ring.h>
 * through xen/ring.h, which gives the barriers its macros use), and the
 * frontend's check of one response, pure so a host test and a fuzz target
 * can feed it anything a backend might write. */
#ifndef XEN_BLKIF_H
#define XEN_BLKIF_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/block.h"
#include "xen/ring.h"

#include <xen/io/blkif.h>
#include <xen/io/protocols.h>

/* One page of ring: blkif.h's DEFINE_RING_TYPES gives the types. */
#define BLKIF_RING_PAGE 4096
#define BLKIF_RING_SLOTS __CONST_RING_SIZE(blkif, BLKIF_RING_PAGE)

/* What the frontend remembers of each request id while it is in flight. */
struct blkif_slot {
    uint8_t busy;      /* the id is in flight */
    uint8_t operation; /* the request's BLKIF_OP_* */
};

/* Checks a response against the ids in flight (slots[0..nslots)). Returns
 * NULL, with the slot's id in *id and the request's outcome in *status,
 * when it is well formed; else why not, with *id the in-flight request it
 * fails (status BLOCK_EINVAL), or -1 when it names none. */
const char *blkif_response_check(const struct blkif_response *rsp, const struct blkif_slot *slots,
                                 unsigned nslots, int *id, enum block_status *status);

#endif
