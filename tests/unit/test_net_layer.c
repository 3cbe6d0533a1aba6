/* drivers/net.c against a fake transport and a fake stack: the receive
 * queue's bound and order, what the layer counts, and one kick for the
 * replies to a pass over the queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/net.h"
#include "kernel/net/stack.h"
#include "kernel/sched.h"
#include "kernel/wait_queue.h"

#define QUEUE 64 /* drivers/net.c's NET_RX_QUEUE */

/* ---- Fakes (locks: tests/unit/fake_locks.c): no sleeping, one thread. */

void wait_queue_sleep(struct wait_queue *wq, struct spinlock *lock)
{
    (void)wq;
    (void)lock;
    fail_msg("the network thread slept with frames queued");
}

static int wakes;

void wait_queue_wake_one(struct wait_queue *wq)
{
    (void)wq;
    wakes++;
}

static int threads;
static struct thread *the_thread = (struct thread *)0x1000;

struct thread *thread_create(const char *name, void (*entry)(void *), void *arg)
{
    (void)entry;
    (void)arg;
    assert_string_equal(name, "net");
    threads++;
    return the_thread;
}

int kprintf(const char *fmt, ...)
{
    (void)fmt;
    return 0;
}

/* ---- The fake transport and stack. */

static int transmitted, kicks, room = 1000;
static int sent_at_first_kick = -1; /* frames transmitted before the first kick */
static struct net_device dev;

static bool fake_transmit(struct net_device *d, const void *frame, unsigned len)
{
    (void)frame;
    (void)len;
    assert_true(spin_is_locked(&d->tx_lock));
    if (room == 0)
        return false;
    room--;
    transmitted++;
    return true;
}

static void fake_kick(struct net_device *d)
{
    assert_true(spin_is_locked(&d->tx_lock));
    if (kicks++ == 0)
        sent_at_first_kick = transmitted;
}

static const struct net_transport fake = {
    .name = "fake", .transmit = fake_transmit, .kick = fake_kick};

static void receive(uint8_t tag, unsigned len);

/* The stack: records each frame's first byte, checks the rest, and
 * replies to each. */
static uint8_t seen[4 * QUEUE];
static bool seen_traced[4 * QUEUE];
static unsigned nr_seen;
static unsigned arrivals; /* frames the stack's fake makes arrive meanwhile */

void net_stack_input(struct net_device *d, uint8_t *frame, unsigned len)
{
    assert_ptr_equal(d, &dev);
    assert_true(len >= 1 && len <= NET_FRAME_MAX);
    seen_traced[nr_seen] = net_tracing;
    seen[nr_seen++] = frame[0];
    for (unsigned i = 1; i < len; i++) /* copied whole, every byte */
        assert_int_equal(frame[i], (uint8_t)(frame[0] + i * 7));
    assert_true(net_transmit(d, frame, len));
    if (arrivals) { /* another frame arrives while this one is handled */
        arrivals--;
        receive((uint8_t)nr_seen, 60);
    }
}

/* The stack's judgement of an echo request: here, a frame tagged 0xec. */
bool net_trace_is_echo(const uint8_t *frame, unsigned len)
{
    return len > 0 && frame[0] == 0xec;
}

static void fake_probe(void)
{
    net_register(&dev);
}

static void receive(uint8_t tag, unsigned len)
{
    uint8_t frame[NET_FRAME_MAX + 1];

    for (unsigned i = 0; i < sizeof(frame); i++)
        frame[i] = (uint8_t)(tag + i * 7);
    net_receive(&dev, frame, len);
}

static int setup(void **state)
{
    (void)state;
    net_rx_drain(false); /* what an earlier test left */
    memset(&dev.stats, 0, sizeof(dev.stats));
    nr_seen = 0;
    transmitted = kicks = wakes = 0;
    arrivals = 0;
    sent_at_first_kick = -1;
    room = 1000;
    return 0;
}

/* Probes run once; the first device is the one registered; the network
 * thread starts with it. */
static void test_probe_register_first(void **state)
{
    (void)state;
    dev.name = "eth0";
    dev.transport = &fake;
    net_add_probe(fake_probe);
    assert_ptr_equal(net_first(), &dev);
    assert_ptr_equal(net_first(), &dev);
    assert_int_equal(threads, 1);
}

/* Frames reach the stack in order, each copied whole, whatever its
 * length. */
static void test_receive_in_order(void **state)
{
    static const unsigned lens[] = {1, 60, 61, 1513, NET_FRAME_MAX};

    (void)state;
    for (uint8_t i = 1; i <= 5; i++)
        receive(i, lens[i - 1]);
    assert_int_equal(wakes, 5);
    assert_int_equal(nr_seen, 0); /* nothing before the thread drains */
    net_rx_drain(true);
    assert_int_equal(nr_seen, 5);
    for (uint8_t i = 1; i <= 5; i++)
        assert_int_equal(seen[i - 1], i);
    assert_int_equal(dev.stats.rx_frames, 5);
    assert_int_equal(dev.stats.rx_dropped, 0);
}

/* A flood: the queue holds QUEUE frames, the rest are counted and
 * dropped, and the queue takes frames again once drained. */
static void test_queue_bound(void **state)
{
    (void)state;
    for (unsigned i = 0; i < QUEUE + 10; i++)
        receive((uint8_t)i, 60);
    assert_int_equal(dev.stats.rx_frames, QUEUE + 10);
    assert_int_equal(dev.stats.rx_dropped, 10);
    net_rx_drain(false);
    assert_int_equal(nr_seen, QUEUE);
    assert_int_equal(seen[QUEUE - 1], QUEUE - 1);
    receive(0xaa, 60);
    net_rx_drain(false);
    assert_int_equal(nr_seen, QUEUE + 1);
    assert_int_equal(seen[QUEUE], 0xaa);
}

/* Longer than any Ethernet frame: never copied. */
static void test_oversized_frame(void **state)
{
    (void)state;
    receive(1, NET_FRAME_MAX + 1);
    receive(2, NET_FRAME_MAX);
    assert_int_equal(dev.stats.rx_dropped, 1);
    net_rx_drain(false);
    assert_int_equal(nr_seen, 1);
    assert_int_equal(seen[0], 2);
}

/* The replies to one pass leave with one kick. */
static void test_one_kick_per_pass(void **state)
{
    (void)state;
    for (uint8_t i = 0; i < 20; i++)
        receive(i, 100);
    net_rx_drain(false);
    assert_int_equal(transmitted, 20);
    assert_int_equal(kicks, 1);
    assert_int_equal(dev.stats.tx_frames, 20);
    net_rx_drain(false); /* nothing queued: nothing sent, no kick */
    assert_int_equal(kicks, 1);
}

/* Under a flood the queue never empties: a pass still ends after a
 * queue's worth, and its replies leave. */
static void test_pass_ends_under_a_flood(void **state)
{
    (void)state;
    receive(0, 60);
    arrivals = 3 * QUEUE;
    while (nr_seen < 3 * QUEUE + 1)
        net_rx_drain(false);
    assert_int_equal(sent_at_first_kick, QUEUE);
    assert_true(kicks >= 3);
    assert_int_equal(dev.stats.rx_dropped, 0);
}

/* Unplugged, every frame is kicked; a refusal is counted, not kicked. */
static void test_transmit_unplugged_and_refused(void **state)
{
    uint8_t frame[60] = {0};

    (void)state;
    assert_true(net_transmit(&dev, frame, sizeof(frame)));
    assert_true(net_transmit(&dev, frame, sizeof(frame)));
    assert_int_equal(kicks, 2);
    room = 0;
    assert_false(net_transmit(&dev, frame, sizeof(frame)));
    assert_false(net_transmit(&dev, frame, NET_FRAME_MAX + 1));
    assert_int_equal(kicks, 2);
    assert_int_equal(dev.stats.tx_frames, 2);
    assert_int_equal(dev.stats.tx_dropped, 2);
}

/* Plugs nest: the kick waits for the outermost unplug, and an unplug
 * with nothing sent kicks nothing. */
static void test_plug_nests(void **state)
{
    uint8_t frame[60] = {0};

    (void)state;
    net_tx_plug(&dev);
    net_tx_plug(&dev);
    net_transmit(&dev, frame, sizeof(frame));
    net_tx_unplug(&dev);
    assert_int_equal(kicks, 0);
    net_tx_unplug(&dev);
    assert_int_equal(kicks, 1);
    net_tx_plug(&dev);
    net_tx_unplug(&dev);
    assert_int_equal(kicks, 1);
}

/* net.trace=N marks the first N echo requests a transport took for the
 * stack, and nothing else: not the frame before, nor those after the
 * budget, and the mark is the stack's only while it handles that frame. */
static void test_trace_marks_budget(void **state)
{
    uint8_t frame[60] = {0xec};

    (void)state;
    net_trace_left = 2;
    receive(1, 60);
    assert_true(net_trace_rx(frame, sizeof(frame)));
    receive(0xec, 60);
    assert_false(net_trace_rx(&(uint8_t){7}, 1)); /* not an echo: no budget taken */
    receive(2, 60);
    assert_true(net_trace_rx(frame, sizeof(frame)));
    receive(0xec, 60);
    assert_false(net_trace_rx(frame, sizeof(frame))); /* the budget is spent */
    receive(0xec, 60);
    net_rx_drain(true);
    assert_int_equal(nr_seen, 5);
    assert_false(seen_traced[0]);
    assert_true(seen_traced[1]);
    assert_false(seen_traced[2]);
    assert_true(seen_traced[3]);
    assert_false(seen_traced[4]);
    assert_false(net_tracing);
    assert_int_equal(net_trace_left, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_register_first),
        cmocka_unit_test_setup(test_receive_in_order, setup),
        cmocka_unit_test_setup(test_queue_bound, setup),
        cmocka_unit_test_setup(test_oversized_frame, setup),
        cmocka_unit_test_setup(test_one_kick_per_pass, setup),
        cmocka_unit_test_setup(test_pass_ends_under_a_flood, setup),
        cmocka_unit_test_setup(test_transmit_unplugged_and_refused, setup),
        cmocka_unit_test_setup(test_plug_nests, setup),
        cmocka_unit_test_setup(test_trace_marks_budget, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
