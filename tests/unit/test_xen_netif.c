/* The netif rings' size from Xen's own macros (io/netif.h), and
 * netfront's check of a receive response (xen/netif_response.c): one
 * whole frame in its slot's page, or why not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xen/netif.h"

#define PAGE 4096u
#define FRAME_MAX 1514u

static void one_page_holds_256_slots(void **state)
{
    (void)state;
    assert_int_equal(NETIF_TX_SLOTS, 256);
    assert_int_equal(NETIF_RX_SLOTS, 256);
}

static struct netif_rx_response rsp(uint16_t id, uint16_t offset, uint16_t flags, int16_t status)
{
    return (struct netif_rx_response){.id = id, .offset = offset, .flags = flags, .status = status};
}

static const char *check(struct netif_rx_response r, RING_IDX i)
{
    return netif_rx_check(&r, i, PAGE, FRAME_MAX);
}

/* Refused, for a reason that names why. */
static void refused(struct netif_rx_response r, RING_IDX i, const char *why)
{
    const char *got = check(r, i);

    assert_non_null(got);
    assert_non_null(strstr(got, why));
}

static void accepts_one_whole_frame(void **state)
{
    (void)state;
    assert_null(check(rsp(3, 0, 0, 60), 3));
    assert_null(check(rsp(3, 0, NETRXF_data_validated, 1514), 3));
    /* The slot's id wraps with the ring, and the index past 2^32. */
    assert_null(check(rsp(255, 0, 0, 98), 0xffffffffu));
    assert_null(check(rsp(0, 0, 0, 98), 256));
    assert_null(check(rsp(0, PAGE - 60, 0, 60), 0));
}

static void refuses_what_we_did_not_ask_for(void **state)
{
    (void)state;
    refused(rsp(4, 0, 0, 60), 3, "id");
    refused(rsp(3, 0, 0, NETIF_RSP_DROPPED), 3, "dropped");
    refused(rsp(3, 0, 0, NETIF_RSP_ERROR), 3, "error");
    refused(rsp(3, 0, 0, 0), 3, "empty");
    refused(rsp(3, 0, NETRXF_more_data, 60), 3, "more slots");
    refused(rsp(3, 0, NETRXF_extra_info, 60), 3, "more slots");
    refused(rsp(3, PAGE - 59, 0, 60), 3, "past its page");
    refused(rsp(3, 0, 0, 1515), 3, "longer");
    refused(rsp(3, 0, 0, INT16_MAX), 3, "past its page");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_page_holds_256_slots),
        cmocka_unit_test(accepts_one_whole_frame),
        cmocka_unit_test(refuses_what_we_did_not_ask_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
