/* The blkif ring through Xen's own macros (io/ring.h), with a backend
 * played by the test: free slots, a full ring, and who must notify whom,
 * with the free-running 32-bit indexes starting just short of the wrap.
 * And the frontend's check of a response (xen/blkif_response.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xen/blkif.h"

static union {
    struct blkif_sring s;
    uint8_t page[BLKIF_RING_PAGE];
} shared;
static struct blkif_front_ring front;
static struct blkif_back_ring back;

/* Both ends attached at index start, as after a long run. */
static void rings_at(RING_IDX start)
{
    memset(&shared, 0, sizeof(shared));
    SHARED_RING_INIT(&shared.s);
    shared.s.req_prod = shared.s.rsp_prod = start;
    shared.s.req_event = shared.s.rsp_event = start + 1;
    FRONT_RING_ATTACH(&front, &shared.s, start, BLKIF_RING_PAGE);
    BACK_RING_ATTACH(&back, &shared.s, start, BLKIF_RING_PAGE);
}

static void queue_request(uint64_t id)
{
    struct blkif_request *req = RING_GET_REQUEST(&front, front.req_prod_pvt);

    req->id = id;
    req->operation = BLKIF_OP_READ;
    front.req_prod_pvt++;
}

/* The backend answers every request it has, pushing as it goes. */
static int backend_answers_all(void)
{
    int notify = 0;

    while (RING_HAS_UNCONSUMED_REQUESTS(&back)) {
        struct blkif_request req = *RING_GET_REQUEST(&back, back.req_cons);
        struct blkif_response *rsp = RING_GET_RESPONSE(&back, back.rsp_prod_pvt);
        back.req_cons++;
        rsp->id = req.id;
        rsp->operation = req.operation;
        rsp->status = BLKIF_RSP_OKAY;
        back.rsp_prod_pvt++;
    }
    RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&back, notify);
    return notify;
}

static void one_page_holds_32_slots(void **state)
{
    (void)state;
    assert_int_equal(BLKIF_RING_SLOTS, 32);
    rings_at(0);
    assert_int_equal(RING_SIZE(&front), 32);
}

/* Across 2^32 the free count, the full test and the slot index hold. */
static void fills_and_drains_across_the_wrap(void **state)
{
    (void)state;
    rings_at(UINT32_MAX - 5);
    for (unsigned i = 0; i < BLKIF_RING_SLOTS; i++) {
        assert_false(RING_FULL(&front));
        assert_int_equal(RING_FREE_REQUESTS(&front), BLKIF_RING_SLOTS - i);
        queue_request(i);
    }
    assert_true(RING_FULL(&front));
    assert_true(front.req_prod_pvt < 64); /* wrapped */
    /* Index 2^32 - 6 and index 26 past the wrap share a slot: mod 32. */
    assert_ptr_equal(RING_GET_REQUEST(&front, UINT32_MAX - 5),
                     RING_GET_REQUEST(&front, (RING_IDX)(UINT32_MAX - 5 + 32)));
    int notify;
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front, notify);
    assert_true(notify);
    backend_answers_all();
    assert_int_equal(RING_HAS_UNCONSUMED_RESPONSES(&front), BLKIF_RING_SLOTS);
    for (unsigned i = 0; i < BLKIF_RING_SLOTS; i++) {
        assert_int_equal(RING_GET_RESPONSE(&front, front.rsp_cons)->id, i);
        front.rsp_cons++;
    }
    assert_int_equal(RING_FREE_REQUESTS(&front), BLKIF_RING_SLOTS);
}

/* The frontend notifies only when the backend's req_event falls inside
 * the batch it pushes: once the backend is busy (req_event behind), never. */
static void request_notification_only_when_asked(void **state)
{
    int notify, more;

    (void)state;
    rings_at(UINT32_MAX - 1);
    queue_request(1);
    queue_request(2);
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front, notify);
    assert_true(notify); /* req_event = start + 1 is among them */
    queue_request(3);
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front, notify);
    assert_false(notify); /* the backend has not asked again */
    /* The backend drains, then asks to hear of the next request. */
    while (RING_HAS_UNCONSUMED_REQUESTS(&back))
        back.req_cons++;
    RING_FINAL_CHECK_FOR_REQUESTS(&back, more);
    assert_false(more);
    queue_request(4);
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front, notify);
    assert_true(notify);
}

/* The final check: with nothing left it sets rsp_event just past what we
 * consumed, so the next response notifies; one that slipped in is seen. */
static void final_check_for_responses(void **state)
{
    int more, notify;

    (void)state;
    rings_at(UINT32_MAX);
    queue_request(7);
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front, notify);
    assert_true(notify);
    assert_true(backend_answers_all());
    front.rsp_cons++;
    RING_FINAL_CHECK_FOR_RESPONSES(&front, more);
    assert_false(more);
    assert_int_equal(shared.s.rsp_event, (RING_IDX)(front.rsp_cons + 1));
    queue_request(8);
    queue_request(9);
    RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&front, notify);
    assert_false(notify);               /* the backend never asked to hear of more */
    assert_true(backend_answers_all()); /* rsp_event asked for the first */
    RING_FINAL_CHECK_FOR_RESPONSES(&front, more);
    assert_true(more); /* not consumed yet: do not sleep */
}

static struct blkif_slot slots[4];

static struct blkif_response response(uint64_t id, uint8_t op, int16_t status)
{
    struct blkif_response r = {.id = id, .operation = op, .status = status};
    return r;
}

static void check(struct blkif_response r, const char *want_err, int want_id,
                  enum block_status want_status)
{
    int id;
    enum block_status status;
    const char *err = blkif_response_check(&r, slots, 4, &id, &status);

    if (want_err)
        assert_non_null(err);
    else
        assert_null(err);
    assert_int_equal(id, want_id);
    assert_int_equal(status, want_status);
}

static void checks_responses(void **state)
{
    (void)state;
    memset(slots, 0, sizeof(slots));
    slots[1] = (struct blkif_slot){.busy = 1, .operation = BLKIF_OP_WRITE};
    slots[2] = (struct blkif_slot){.busy = 1, .operation = BLKIF_OP_FLUSH_DISKCACHE};
    check(response(1, BLKIF_OP_WRITE, BLKIF_RSP_OKAY), NULL, 1, BLOCK_OK);
    check(response(1, BLKIF_OP_WRITE, BLKIF_RSP_ERROR), NULL, 1, BLOCK_EIO);
    check(response(2, BLKIF_OP_FLUSH_DISKCACHE, BLKIF_RSP_EOPNOTSUPP), NULL, 2, BLOCK_EIO);
    /* Malformed, naming a request in flight: that request fails. */
    check(response(1, BLKIF_OP_WRITE, 42), "bad status", 1, BLOCK_EINVAL);
    check(response(1, BLKIF_OP_READ, BLKIF_RSP_OKAY), "wrong op", 1, BLOCK_EINVAL);
    /* Malformed, naming none: nothing fails. */
    check(response(0, BLKIF_OP_READ, BLKIF_RSP_OKAY), "not in flight", -1, BLOCK_EINVAL);
    check(response(4, BLKIF_OP_READ, BLKIF_RSP_OKAY), "never given", -1, BLOCK_EINVAL);
    check(response(UINT64_MAX, BLKIF_OP_READ, BLKIF_RSP_OKAY), "never given", -1, BLOCK_EINVAL);
    check(response(1ull << 32 | 1, BLKIF_OP_WRITE, BLKIF_RSP_OKAY), "high bits", -1, BLOCK_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_page_holds_32_slots),
        cmocka_unit_test(fills_and_drains_across_the_wrap),
        cmocka_unit_test(request_notification_only_when_asked),
        cmocka_unit_test(final_check_for_responses),
        cmocka_unit_test(checks_responses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
