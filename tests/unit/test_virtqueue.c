/* drivers/virtqueue.c with the test as the device: descriptor chains
 * direct and indirect, the free list, indices across the 16-bit wrap,
 * when a kick is due under EVENT_IDX and without it, and the final check
 * for completions when the interrupt is re-armed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/virtqueue.h"

#define SIZE 8

static _Alignas(4096) uint8_t ring[3 * 4096];
static struct vring_desc indirect[SIZE * VQ_MAX_CHAIN];
static struct virtqueue vq;
static uint16_t device_seen; /* the device's own count of entries taken */
static int tokens[64];

static void setup_vq(bool use_indirect, bool event_idx)
{
    memset(ring, 0, sizeof(ring));
    assert_true(vq_ring_bytes(SIZE) <= sizeof(ring));
    vq_init(&vq, SIZE, ring, use_indirect ? indirect : NULL, event_idx);
    device_seen = 0;
}

static uint16_t *avail_event(void)
{
    return (uint16_t *)&vq.used->ring[SIZE];
}

static uint16_t *used_event(void)
{
    return (uint16_t *)&vq.avail->ring[SIZE];
}

/* A request as virtio-blk sends it: header, n data pages, status. */
static int add_request(unsigned data, int *token)
{
    struct vq_buf b[VQ_MAX_CHAIN];
    unsigned n = 0;

    b[n++] = (struct vq_buf){.addr = 0x1000, .len = 16};
    for (unsigned i = 0; i < data; i++)
        b[n++] = (struct vq_buf){.addr = 0x10000 + i * 4096, .len = 4096, .device_writes = true};
    b[n++] = (struct vq_buf){.addr = 0x2000, .len = 1, .device_writes = true};
    return vq_add(&vq, b, n, token);
}

/* The device takes the next available entry and completes it. */
static uint16_t device_complete_next(uint32_t len)
{
    uint16_t head;

    assert_int_not_equal(device_seen, vq.avail->idx);
    head = vq.avail->ring[device_seen++ % SIZE];
    vq.used->ring[vq.used->idx % SIZE] = (struct vring_used_elem){.id = head, .len = len};
    vq.used->idx++;
    return head;
}

static void test_chain_without_indirect(void **state)
{
    struct vring_desc *d;
    int head;

    (void)state;
    setup_vq(false, true);
    head = add_request(2, &tokens[0]);
    assert_int_equal(head, 0);
    assert_int_equal(vq.num_free, SIZE - 4);
    d = &vq.desc[head];
    assert_int_equal(d->len, 16);
    assert_int_equal(d->flags, VRING_DESC_F_NEXT); /* the device reads the header */
    d = &vq.desc[d->next];
    assert_int_equal(d->flags, VRING_DESC_F_NEXT | VRING_DESC_F_WRITE);
    d = &vq.desc[d->next];
    assert_int_equal(d->addr, 0x11000);
    d = &vq.desc[d->next];
    assert_int_equal(d->flags, VRING_DESC_F_WRITE); /* the status ends the chain */
    assert_int_equal(d->len, 1);
    /* Not visible to the device until published. */
    assert_int_equal(vq.avail->idx, 0);
    vq_publish(&vq);
    assert_int_equal(vq.avail->idx, 1);
    assert_int_equal(vq.avail->ring[0], 0);
}

static void test_table_fills_and_frees(void **state)
{
    void *token;
    uint16_t head;
    uint32_t len;

    (void)state;
    setup_vq(false, false);
    assert_int_equal(add_request(2, &tokens[0]), 0); /* 4 descriptors */
    assert_int_equal(add_request(2, &tokens[1]), 4); /* 4 more: full */
    assert_int_equal(add_request(0, &tokens[2]), -1);
    assert_int_equal(vq.num_free, 0);
    vq_publish(&vq);
    device_complete_next(4097);
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), 1);
    assert_ptr_equal(token, &tokens[0]);
    assert_int_equal(head, 0);
    assert_int_equal(len, 4097);
    assert_int_equal(vq.num_free, 4);
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), 0);
    /* The freed chain is reused, whole. */
    assert_int_equal(add_request(1, &tokens[2]), 0);
    assert_int_equal(vq.num_free, 1);
}

static void test_indirect_takes_one_slot(void **state)
{
    struct vring_desc *table;
    int head;

    (void)state;
    setup_vq(true, true);
    for (int i = 0; i < SIZE; i++) {
        head = add_request(16, &tokens[i]);
        assert_int_equal(head, i);
        assert_int_equal(vq.desc[head].flags, VRING_DESC_F_INDIRECT);
        assert_int_equal(vq.desc[head].len, 18 * sizeof(struct vring_desc));
    }
    assert_int_equal(add_request(1, &tokens[9]), -1);
    table = (struct vring_desc *)(uintptr_t)vq.desc[3].addr;
    assert_ptr_equal(table, indirect + 3 * VQ_MAX_CHAIN);
    assert_int_equal(table[0].next, 1);
    assert_int_equal(table[17].flags, VRING_DESC_F_WRITE);
    assert_int_equal(table[16].addr, 0x10000 + 15 * 4096);
}

/* Both rings' indices are free-running 16-bit counters: entries before
 * and after 65535 -> 0 land in the right slots and come back in order. */
static void test_indices_wrap(void **state)
{
    void *token;
    uint16_t head;
    uint32_t len;

    (void)state;
    setup_vq(true, true);
    vq.avail_idx = vq.kicked_idx = vq.avail->idx = 65533;
    vq.last_used = vq.used->idx = 65533;
    device_seen = 65533;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 5; i++)
            assert_true(add_request(1, &tokens[round * 5 + i]) >= 0);
        vq_publish(&vq);
        for (int i = 0; i < 5; i++)
            device_complete_next(0);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(vq_pop_used(&vq, &token, &head, &len), 1);
            assert_ptr_equal(token, &tokens[round * 5 + i]);
        }
        assert_int_equal(vq_pop_used(&vq, &token, &head, &len), 0);
        assert_int_equal(vq.num_free, SIZE);
    }
    assert_int_equal(vq.avail->idx, (uint16_t)(65533 + 15));
    assert_int_equal(vq.last_used, (uint16_t)(65533 + 15));
}

/* EVENT_IDX: the device asks to be told once avail->idx passes its
 * avail_event; a batch that crosses it is one kick, one that does not is
 * none, across the wrap too. */
static void test_kick_follows_avail_event(void **state)
{
    (void)state;
    setup_vq(true, true);
    *avail_event() = 0; /* wants to hear of entry 0 */
    add_request(1, &tokens[0]);
    add_request(1, &tokens[1]);
    assert_true(vq_publish(&vq)); /* 0 -> 2 passes entry 0 */
    add_request(1, &tokens[2]);
    assert_false(vq_publish(&vq)); /* 2 -> 3: the device still busy at 0 */
    *avail_event() = 3;
    add_request(1, &tokens[3]);
    assert_true(vq_publish(&vq));  /* 3 -> 4 passes entry 3 */
    assert_false(vq_publish(&vq)); /* nothing new: no kick */
    /* Across the wrap: old 65535, new 1, event 0. */
    assert_true(vring_need_event(0, 1, 65535));
    assert_true(vring_need_event(65535, 1, 65535));
    assert_false(vring_need_event(1, 1, 65535));
    assert_false(vring_need_event(65534, 1, 65535));
}

static void test_kick_follows_flags_without_event_idx(void **state)
{
    (void)state;
    setup_vq(false, false);
    add_request(0, &tokens[0]);
    assert_true(vq_publish(&vq));
    vq.used->flags = VRING_USED_F_NO_NOTIFY; /* the device is polling */
    add_request(0, &tokens[1]);
    assert_false(vq_publish(&vq));
    /* The other way: no interrupts while the driver reaps, until it re-arms. */
    vq_quiet(&vq);
    assert_int_equal(vq.avail->flags, VRING_AVAIL_F_NO_INTERRUPT);
    assert_false(vq_arm_interrupt(&vq));
    assert_int_equal(vq.avail->flags, 0);
}

/* Re-arming sets used_event to the next entry we will read, and reports a
 * completion that slipped in before it: the caller reaps again rather
 * than sleep on an interrupt that will not come. */
static void test_arm_interrupt_final_check(void **state)
{
    void *token;
    uint16_t head;
    uint32_t len;

    (void)state;
    setup_vq(true, true);
    add_request(1, &tokens[0]);
    add_request(1, &tokens[1]);
    vq_publish(&vq);
    device_complete_next(0);
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), 1);
    assert_false(vq_arm_interrupt(&vq));
    assert_int_equal(*used_event(), 1);
    device_complete_next(0);
    assert_true(vq_arm_interrupt(&vq));
}

static void test_bad_used_id(void **state)
{
    void *token;
    uint16_t head;
    uint32_t len;

    (void)state;
    setup_vq(true, true);
    add_request(1, &tokens[0]);
    vq_publish(&vq);
    vq.used->ring[0] = (struct vring_used_elem){.id = 5}; /* never handed out */
    vq.used->idx = 1;
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), -1);
    vq.used->ring[0].id = 4000; /* past the table */
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), -1);
    vq.used->ring[0].id = 0;
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), 1);
    vq.used->ring[1].id = 0; /* the same head twice */
    vq.used->idx = 2;
    assert_int_equal(vq_pop_used(&vq, &token, &head, &len), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_without_indirect),
        cmocka_unit_test(test_table_fills_and_frees),
        cmocka_unit_test(test_indirect_takes_one_slot),
        cmocka_unit_test(test_indices_wrap),
        cmocka_unit_test(test_kick_follows_avail_event),
        cmocka_unit_test(test_kick_follows_flags_without_event_idx),
        cmocka_unit_test(test_arm_interrupt_final_check),
        cmocka_unit_test(test_bad_used_id),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
