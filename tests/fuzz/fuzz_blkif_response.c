/* xen/blkif_response.c: responses a backend might write, checked against
 * the ids a frontend has in flight, each id freed once its response is
 * taken, as blkfront does.
 *
 * Input: u32 busy mask (slot i in flight if bit i), 32 u8 operations, then
 * responses, each u64 id, u8 operation, u16 status, until the input ends. */
#include "tests/fuzz/fuzz.h"
#include "xen/blkif.h"

#define SLOTS BLKIF_RING_SLOTS

static void one(struct blkif_slot *slots, const struct blkif_response *rsp)
{
    int id;
    enum block_status status;
    const char *err = blkif_response_check(rsp, slots, SLOTS, &id, &status);

    FUZZ_CHECK(id >= -1 && id < (int)SLOTS);
    FUZZ_CHECK(id == -1 || (slots[id].busy && (uint64_t)id == rsp->id));
    if (!err) {
        FUZZ_CHECK(id >= 0 && rsp->operation == slots[id].operation);
        FUZZ_CHECK(status == (rsp->status == BLKIF_RSP_OKAY ? BLOCK_OK : BLOCK_EIO));
        FUZZ_CHECK(rsp->status == BLKIF_RSP_OKAY || rsp->status == BLKIF_RSP_ERROR ||
                   rsp->status == BLKIF_RSP_EOPNOTSUPP);
    } else {
        FUZZ_CHECK(status == BLOCK_EINVAL && strlen(err) > 0);
    }
    if (id >= 0)
        slots[id].busy = 0;
}

/* A well-formed exchange must pass, or a check that refuses all would. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct blkif_slot slots[SLOTS] = {[3] = {.busy = 1, .operation = BLKIF_OP_WRITE}};
    struct blkif_response ok = {.id = 3, .operation = BLKIF_OP_WRITE, .status = BLKIF_RSP_OKAY};
    int id;
    enum block_status status;

    (void)argc;
    (void)argv;
    FUZZ_CHECK(blkif_response_check(&ok, slots, SLOTS, &id, &status) == NULL);
    FUZZ_CHECK(id == 3 && status == BLOCK_OK);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size};
    struct blkif_slot slots[SLOTS];
    uint32_t busy = (uint32_t)fuzz_take(&in, 4);

    for (unsigned i = 0; i < SLOTS; i++)
        slots[i] =
            (struct blkif_slot){.busy = (busy >> i) & 1, .operation = (uint8_t)fuzz_take(&in, 1)};
    while (in.left > 0) {
        struct blkif_response rsp;
        memset(&rsp, 0xa5, sizeof(rsp)); /* the padding a backend may fill */
        rsp.id = fuzz_take(&in, 8);
        rsp.operation = (uint8_t)fuzz_take(&in, 1);
        rsp.status = (int16_t)fuzz_take(&in, 2);
        one(slots, &rsp);
    }
    return 0;
}
