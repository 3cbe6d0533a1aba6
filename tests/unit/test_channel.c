/* kernel/channel.c against fake locks and wait queues. A "sleep" runs the
 * other end (a peer function) and returns, as if it had been woken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/channel.h"

#define CAPACITY 8

static struct channel ch;
static uint8_t ring_data[CAPACITY];
static void (*peer)(void);
static bool in_peer;
static int reader_sleeps, writer_sleeps, reader_wakes, writer_wakes;

void spin_lock(struct spinlock *l)
{
    assert_false(spin_is_locked(l));
    l->next_ticket++;
}

void spin_unlock(struct spinlock *l)
{
    assert_true(spin_is_locked(l));
    l->owner++;
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
    spin_lock(l);
    return 0;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
    (void)flags;
    spin_unlock(l);
}

/* The peer must not need to sleep itself: that would be a deadlock. */
void wait_queue_sleep(struct wait_queue *wq, struct spinlock *lock)
{
    assert_ptr_equal(lock, &ch.lock);
    assert_true(spin_is_locked(lock));
    assert_false(in_peer);
    assert_non_null(peer);
    *(wq == &ch.readers ? &reader_sleeps : &writer_sleeps) += 1;
    spin_unlock(lock);
    in_peer = true;
    peer();
    in_peer = false;
    spin_lock(lock);
}

void wait_queue_wake_one(struct wait_queue *wq)
{
    wait_queue_wake_all(wq);
}

void wait_queue_wake_all(struct wait_queue *wq)
{
    assert_true(spin_is_locked(&ch.lock));
    *(wq == &ch.readers ? &reader_wakes : &writer_wakes) += 1;
}

static int setup(void **state)
{
    (void)state;
    assert_true(channel_init(&ch, ring_data, sizeof(ring_data)));
    peer = NULL;
    reader_sleeps = writer_sleeps = reader_wakes = writer_wakes = 0;
    return 0;
}

static void test_init_size(void **state)
{
    struct channel c;

    (void)state;
    assert_false(channel_init(&c, ring_data, 6));
}

static void test_in_order(void **state)
{
    char out[6];

    (void)state;
    channel_send(&ch, "abc", 3);
    channel_send(&ch, "def", 3);
    channel_recv(&ch, out, 2);
    channel_recv(&ch, out + 2, 4);
    assert_memory_equal(out, "abcdef", 6);
    assert_int_equal(reader_sleeps + writer_sleeps, 0);
    assert_int_equal(reader_wakes, 2);
    assert_int_equal(writer_wakes, 2);
}

/* With 6 bytes held, an 8-byte message waits for room for all of it
 * rather than going in split. */
static void drain_first_message(void)
{
    char out[6];

    assert_int_equal(ring_used(&ch.ring), 6);
    channel_recv(&ch, out, 6);
    assert_memory_equal(out, "012345", 6);
}

static void test_message_not_split_on_send(void **state)
{
    char out[8];

    (void)state;
    channel_send(&ch, "012345", 6);
    peer = drain_first_message;
    channel_send(&ch, "ABCDEFGH", 8);
    assert_int_equal(writer_sleeps, 1);
    channel_recv(&ch, out, 8);
    assert_memory_equal(out, "ABCDEFGH", 8);
}

/* A receive of 8 with 3 held waits for all 8. */
static void send_rest(void)
{
    assert_int_equal(ring_used(&ch.ring), 3);
    channel_send(&ch, "defgh", 5);
}

static void test_message_not_split_on_recv(void **state)
{
    char out[8];

    (void)state;
    channel_send(&ch, "abc", 3);
    peer = send_rest;
    channel_recv(&ch, out, 8);
    assert_memory_equal(out, "abcdefgh", 8);
    assert_int_equal(reader_sleeps, 1);
}

/* Larger than the ring: goes in pieces, each drained by the peer. */
static char drained[64];
static size_t drained_len;

static void drain_all(void)
{
    size_t n = ring_used(&ch.ring);

    channel_recv(&ch, drained + drained_len, n);
    drained_len += n;
}

static void test_larger_than_ring(void **state)
{
    const char *msg = "the quick brown fox jumps";
    size_t len = strlen(msg);

    (void)state;
    drained_len = 0;
    peer = drain_all;
    channel_send(&ch, msg, len);
    drain_all();
    assert_int_equal(drained_len, len);
    assert_memory_equal(drained, msg, len);
    assert_int_equal(writer_sleeps, (len - 1) / CAPACITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_size),
        cmocka_unit_test_setup(test_in_order, setup),
        cmocka_unit_test_setup(test_message_not_split_on_send, setup),
        cmocka_unit_test_setup(test_message_not_split_on_recv, setup),
        cmocka_unit_test_setup(test_larger_than_ring, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
