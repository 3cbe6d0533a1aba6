/* drivers/block.c against a fake transport: what the layer refuses before
 * a transport sees it, how it holds requests beyond the device's queue
 * depth and hands them on as slots free, and one kick per batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "drivers/block.h"
#include "kernel/wait_queue.h"

/* ---- Fakes (locks: tests/unit/fake_locks.c): a console that prints. */

void wait_queue_sleep(struct wait_queue *wq, struct spinlock *lock)
{
    (void)wq;
    (void)lock;
    fail_msg("block_io slept on a request that had completed");
}

void wait_queue_wake_one(struct wait_queue *wq)
{
    (void)wq;
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}

/* ---- The fake transport: holds what it is given, completes on demand. */

static struct block_request *held[8];
static int nr_held, kicks;
static struct block_device dev;

static enum block_status fake_submit(struct block_device *d, struct block_request *r)
{
    assert_true(spin_is_locked(&d->lock));
    if (r->sector == 999) /* the transport's own refusal */
        return BLOCK_EIO;
    held[nr_held++] = r;
    return BLOCK_PENDING;
}

static void fake_kick(struct block_device *d)
{
    (void)d;
    kicks++;
}

static const struct block_transport fake = {
    .name = "fake", .submit = fake_submit, .kick = fake_kick};

static int done_count;
static void count_done(struct block_request *r)
{
    (void)r;
    done_count++;
}

/* The submitter's lock, which its done takes as block_bench's io_done
 * takes io.lock: the fake spin_lock_irqsave fails the test if done runs
 * while the submitter holds it. */
static struct spinlock owner_lock;

static bool registered;

static int setup(void **state)
{
    (void)state;
    dev = (struct block_device){.name = "fk0",
                                .transport = &fake,
                                .sectors = 64,
                                .max_request = 8192,
                                .queue_depth = 2,
                                .can_flush = true};
    if (!registered)
        block_register(&dev); /* once: the layer keeps its pointer */
    registered = true;
    dev.waiting = NULL;
    dev.waiting_tail = &dev.waiting;
    nr_held = kicks = done_count = 0;
    owner_lock = (struct spinlock){0}; /* a failed test may have left it held */
    return 0;
}

static _Alignas(4096) uint8_t buf[8192];

static struct block_request req(enum block_op op, uint64_t sector, uint32_t len)
{
    return (struct block_request){
        .op = op, .sector = sector, .buf = buf, .len = len, .done = count_done};
}

static void test_refused_before_the_transport(void **state)
{
    struct block_request r;

    (void)state;
    r = req(BLOCK_READ, 60, 8 * 512); /* ends past sector 64 */
    assert_int_equal(block_submit(&dev, &r), BLOCK_ERANGE);
    r = req(BLOCK_READ, UINT64_MAX - 1, 4096); /* the end wraps */
    assert_int_equal(block_submit(&dev, &r), BLOCK_ERANGE);
    r = req(BLOCK_WRITE, 0, 100); /* not whole sectors */
    assert_int_equal(block_submit(&dev, &r), BLOCK_EINVAL);
    r = req(BLOCK_WRITE, 0, 16384); /* more than one request carries */
    assert_int_equal(block_submit(&dev, &r), BLOCK_EINVAL);
    r = req(BLOCK_READ, 0, 0);
    assert_int_equal(block_submit(&dev, &r), BLOCK_EINVAL);
    dev.read_only = true;
    r = req(BLOCK_WRITE, 0, 4096);
    assert_int_equal(block_submit(&dev, &r), BLOCK_EROFS);
    r = req(BLOCK_READ, 56, 4096); /* the last 8 sectors: fine */
    assert_int_equal(block_submit(&dev, &r), BLOCK_PENDING);
    assert_int_equal(nr_held, 1);
    assert_int_equal(done_count, 0); /* refusals never call done */
}

static void test_flush_without_cache_is_done_at_once(void **state)
{
    struct block_request r = req(BLOCK_FLUSH, 0, 0);

    (void)state;
    dev.can_flush = false;
    assert_int_equal(block_submit(&dev, &r), BLOCK_OK);
    assert_int_equal(nr_held, 0);
    dev.can_flush = true;
    assert_int_equal(block_submit(&dev, &r), BLOCK_PENDING);
    assert_int_equal(nr_held, 1);
}

static void test_depth_limits_what_the_transport_holds(void **state)
{
    struct block_request r[4];

    (void)state;
    for (int i = 0; i < 4; i++) {
        r[i] = req(BLOCK_WRITE, (uint64_t)i * 8, 4096);
        assert_int_equal(block_submit(&dev, &r[i]), BLOCK_PENDING);
    }
    assert_int_equal(nr_held, 2); /* queue depth 2 */
    assert_int_equal(kicks, 2);   /* none for the two that waited */
    block_complete(&dev, held[0], BLOCK_OK);
    assert_int_equal(done_count, 1);
    assert_int_equal(r[0].status, BLOCK_OK);
    assert_int_equal(nr_held, 3); /* r[2] took the freed slot, in order */
    assert_ptr_equal(held[2], &r[2]);
    assert_int_equal(kicks, 3);
    block_complete(&dev, held[1], BLOCK_EIO);
    assert_int_equal(r[1].status, BLOCK_EIO);
    assert_ptr_equal(held[3], &r[3]);
    block_complete(&dev, held[2], BLOCK_OK);
    block_complete(&dev, held[3], BLOCK_OK);
    assert_int_equal(done_count, 4);
    assert_int_equal(dev.stats.requests, 4);
    assert_int_equal(dev.in_flight, 0);
}

/* A plugged batch goes out with one kick, at the unplug. */
static void test_plug_batches_the_kick(void **state)
{
    struct block_request r[2] = {req(BLOCK_READ, 0, 512), req(BLOCK_READ, 8, 512)};

    (void)state;
    block_plug(&dev);
    block_plug(&dev); /* nested */
    assert_int_equal(block_submit(&dev, &r[0]), BLOCK_PENDING);
    assert_int_equal(block_submit(&dev, &r[1]), BLOCK_PENDING);
    assert_int_equal(nr_held, 2);
    block_unplug(&dev);
    assert_int_equal(kicks, 0);
    block_unplug(&dev);
    assert_int_equal(kicks, 1);
    block_unplug(&dev); /* unbalanced: ignored */
    assert_int_equal(kicks, 1);
}

static void locking_done(struct block_request *r)
{
    unsigned long flags = spin_lock_irqsave(&owner_lock);

    (void)r;
    done_count++;
    spin_unlock_irqrestore(&owner_lock, flags);
}

/* Refused by the transport as it is submitted: the status comes back and
 * done does not run under the submitter's lock. */
static void test_transport_refusal_returns_without_done(void **state)
{
    struct block_request r = req(BLOCK_READ, 999, 512);
    unsigned long flags;

    (void)state;
    dev.sectors = 2000;
    r.done = locking_done;
    flags = spin_lock_irqsave(&owner_lock);
    assert_int_equal(block_submit(&dev, &r), BLOCK_EIO);
    spin_unlock_irqrestore(&owner_lock, flags);
    assert_int_equal(r.status, BLOCK_EIO);
    assert_int_equal(done_count, 0);
    assert_int_equal(dev.in_flight, 0);
    assert_int_equal(kicks, 0);
}

/* Refused later, as it leaves the layer's queue: ended by the completion
 * that made room, with the transport's status; the request behind it
 * still goes out. */
static void test_transport_refusal_after_waiting_ends_from_the_completion(void **state)
{
    struct block_request r[4] = {req(BLOCK_READ, 0, 512), req(BLOCK_READ, 8, 512),
                                 req(BLOCK_READ, 999, 512), req(BLOCK_READ, 16, 512)};
    unsigned long flags;

    (void)state;
    dev.sectors = 2000;
    flags = spin_lock_irqsave(&owner_lock);
    for (int i = 0; i < 4; i++) {
        r[i].done = locking_done;
        assert_int_equal(block_submit(&dev, &r[i]), BLOCK_PENDING);
    }
    spin_unlock_irqrestore(&owner_lock, flags);
    assert_int_equal(nr_held, 2);
    block_complete(&dev, held[0], BLOCK_OK);
    assert_int_equal(done_count, 2); /* r[0], and r[2] refused */
    assert_int_equal(r[2].status, BLOCK_EIO);
    assert_int_equal(nr_held, 3);
    assert_ptr_equal(held[2], &r[3]);
    assert_int_equal(dev.in_flight, 2);
}

/* A request that completes inside submit (as a transport with a
 * synchronous device might) must not leave block_io asleep. */
static enum block_status sync_submit(struct block_device *d, struct block_request *r)
{
    (void)d;
    held[nr_held++] = r;
    return BLOCK_PENDING;
}

static void sync_kick(struct block_device *d)
{
    (void)d;
}

static void test_block_io_returns_the_status(void **state)
{
    static const struct block_transport sync = {
        .name = "sync", .submit = sync_submit, .kick = sync_kick};

    (void)state;
    dev.transport = &sync;
    assert_int_equal(block_io(&dev, BLOCK_WRITE, 0, buf, 4096 + 1), BLOCK_EINVAL);
    assert_string_equal(block_status_name(BLOCK_EROFS), "read-only device");
    assert_string_equal(block_status_name((enum block_status)42), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_refused_before_the_transport, setup),
        cmocka_unit_test_setup(test_flush_without_cache_is_done_at_once, setup),
        cmocka_unit_test_setup(test_depth_limits_what_the_transport_holds, setup),
        cmocka_unit_test_setup(test_plug_batches_the_kick, setup),
        cmocka_unit_test_setup(test_transport_refusal_returns_without_done, setup),
        cmocka_unit_test_setup(test_transport_refusal_after_waiting_ends_from_the_completion,
                               setup),
        cmocka_unit_test_setup(test_block_io_returns_the_status, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
