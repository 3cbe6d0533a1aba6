/* xen/pv/multicall.c against a fake Xen that records what it was asked to
 * do: queueing, consecutive requests extending one entry, flushing when
 * full, and a refused update reported with the pte it was for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xen/pv/multicall.h"

#define PTE_MADDR(i) (0x7000000ULL + 8 * (i)) /* machine address of pte i */
#define PTE_VA(i) (0x2000000ULL + 8 * (i))    /* where the kernel reads it */

/* The fake Xen: runs every entry; refuses the update whose pte is
 * refuse_maddr (and those after it in its call, as Xen stops there). */
struct fake_xen {
    unsigned issues;        /* calls of the issue function */
    unsigned entries_seen;  /* entries over all of them */
    unsigned counts[64];    /* each entry's count, in order */
    unsigned long ops[64];  /* each entry's op, in order */
    uint64_t updated[1024]; /* ptr of every update run, in order */
    unsigned nupdated;
    uint64_t invalidated[256]; /* linear_addr of every mmuext_op run */
    unsigned ninvalidated;
    uint64_t refuse_maddr; /* 0: refuse nothing */
    long call_error;       /* nonzero: the multicall itself fails */
};

static long run_mmu_update(struct fake_xen *x, struct multicall_entry *e)
{
    const struct mmu_update *u = (const struct mmu_update *)(uintptr_t)e->args[0];
    unsigned *done = (unsigned *)(uintptr_t)e->args[2];

    assert_int_equal(e->args[3], DOMID_SELF);
    for (unsigned i = 0; i < e->args[1]; i++) {
        if ((u[i].ptr & ~3ULL) == x->refuse_maddr)
            return -22; /* -EINVAL, as Xen's <errno.h> numbers it */
        x->updated[x->nupdated++] = u[i].ptr;
        ++*done;
    }
    return 0;
}

static long run_mmuext_op(struct fake_xen *x, struct multicall_entry *e)
{
    const struct mmuext_op *op = (const struct mmuext_op *)(uintptr_t)e->args[0];
    unsigned *done = (unsigned *)(uintptr_t)e->args[2];

    for (unsigned i = 0; i < e->args[1]; i++) {
        x->invalidated[x->ninvalidated++] = op[i].arg1.linear_addr;
        ++*done;
    }
    return 0;
}

static long fake_issue(struct multicall_entry *entries, unsigned n, void *ctx)
{
    struct fake_xen *x = ctx;

    x->issues++;
    if (x->call_error)
        return x->call_error;
    for (unsigned i = 0; i < n; i++) {
        struct multicall_entry *e = &entries[i];
        x->counts[x->entries_seen] = (unsigned)e->args[1];
        x->ops[x->entries_seen++] = e->op;
        if (e->op == __HYPERVISOR_mmu_update)
            e->result = (xen_ulong_t)run_mmu_update(x, e);
        else
            e->result = (xen_ulong_t)run_mmuext_op(x, e);
    }
    return 0;
}

static struct mc_batch batch;
static struct fake_xen xen;
static struct mc_failure failure;

static int setup(void **state)
{
    (void)state;
    memset(&xen, 0, sizeof(xen));
    memset(&failure, 0, sizeof(failure));
    mc_batch_init(&batch, fake_issue, &xen);
    return 0;
}

static void queue_update(unsigned i)
{
    assert_true(mc_queue_mmu_update(&batch, PTE_MADDR(i) | MMU_PT_UPDATE_PRESERVE_AD, i, PTE_VA(i),
                                    &failure));
}

static void queue_invlpg(uint64_t va)
{
    struct mmuext_op op = {.cmd = MMUEXT_INVLPG_LOCAL, .arg1.linear_addr = va};

    assert_true(mc_queue_mmuext_op(&batch, &op, &failure));
}

static void test_nothing_until_flush(void **state)
{
    (void)state;
    assert_true(mc_empty(&batch));
    assert_true(mc_flush(&batch, &failure)); /* empty: no call at all */
    assert_int_equal(xen.issues, 0);
    queue_update(0);
    queue_invlpg(0x1000);
    assert_false(mc_empty(&batch));
    assert_int_equal(xen.issues, 0);
    assert_true(mc_flush(&batch, &failure));
    assert_int_equal(xen.issues, 1);
    assert_true(mc_empty(&batch));
    assert_int_equal(xen.nupdated, 1);
    assert_int_equal(xen.updated[0], PTE_MADDR(0) | MMU_PT_UPDATE_PRESERVE_AD);
    assert_int_equal(xen.invalidated[0], 0x1000);
}

/* 100 updates in a row are one entry of count 100; an invalidation
 * between runs starts a new entry, and its neighbours extend too. */
static void test_extend_args(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 100; i++)
        queue_update(i);
    queue_invlpg(0x1000);
    queue_invlpg(0x2000);
    queue_update(100);
    assert_true(mc_flush(&batch, &failure));
    assert_int_equal(xen.entries_seen, 3);
    assert_int_equal(xen.ops[0], __HYPERVISOR_mmu_update);
    assert_int_equal(xen.counts[0], 100);
    assert_int_equal(xen.ops[1], __HYPERVISOR_mmuext_op);
    assert_int_equal(xen.counts[1], 2);
    assert_int_equal(xen.ops[2], __HYPERVISOR_mmu_update);
    assert_int_equal(xen.counts[2], 1);
    for (unsigned i = 0; i <= 100; i++)
        assert_int_equal(xen.updated[i] & ~3ULL, PTE_MADDR(i)); /* in queue order */
}

/* The update array fills first: the next update flushes, then queues. */
static void test_flush_when_updates_full(void **state)
{
    (void)state;
    for (unsigned i = 0; i < MC_MMU_UPDATES; i++)
        queue_update(i);
    assert_int_equal(xen.issues, 0);
    queue_update(MC_MMU_UPDATES);
    assert_int_equal(xen.issues, 1);
    assert_int_equal(xen.nupdated, MC_MMU_UPDATES);
    assert_true(mc_flush(&batch, &failure));
    assert_int_equal(xen.issues, 2);
    assert_int_equal(xen.nupdated, MC_MMU_UPDATES + 1);
    assert_int_equal(xen.updated[MC_MMU_UPDATES] & ~3ULL, PTE_MADDR(MC_MMU_UPDATES));
}

/* Alternating ops take an entry each: the entries fill first. */
static void test_flush_when_entries_full(void **state)
{
    (void)state;
    for (unsigned i = 0; i < MC_ENTRIES; i++) {
        if (i % 2)
            queue_invlpg(0x1000 * i);
        else
            queue_update(i);
    }
    assert_int_equal(xen.issues, 0);
    queue_invlpg(0x1000); /* extends the last entry: no flush */
    assert_int_equal(xen.issues, 0);
    queue_update(99); /* needs a new entry */
    assert_int_equal(xen.issues, 1);
    assert_int_equal(xen.entries_seen, MC_ENTRIES);
    assert_true(mc_flush(&batch, &failure));
    assert_int_equal(xen.entries_seen, MC_ENTRIES + 1);
}

/* Xen refuses update 7 of 10: the report names that pte, both addresses. */
static void test_failure_names_the_pte(void **state)
{
    (void)state;
    xen.refuse_maddr = PTE_MADDR(7);
    queue_invlpg(0x5000);
    for (unsigned i = 0; i < 10; i++)
        queue_update(i);
    assert_false(mc_flush(&batch, &failure));
    assert_int_equal(failure.op, __HYPERVISOR_mmu_update);
    assert_int_equal(failure.error, -22);
    assert_int_equal(failure.update.ptr, PTE_MADDR(7) | MMU_PT_UPDATE_PRESERVE_AD);
    assert_int_equal(failure.update.val, 7);
    assert_int_equal(failure.pte_va, PTE_VA(7));
    assert_true(mc_empty(&batch)); /* nothing stays queued */
}

/* A failure in a flush forced by a full buffer reaches the queueing call. */
static void test_failure_in_implicit_flush(void **state)
{
    (void)state;
    xen.refuse_maddr = PTE_MADDR(3);
    for (unsigned i = 0; i < MC_MMU_UPDATES; i++)
        queue_update(i);
    assert_false(mc_queue_mmu_update(&batch, PTE_MADDR(999), 0, PTE_VA(999), &failure));
    assert_int_equal(failure.pte_va, PTE_VA(3));
}

static void test_failure_of_the_call(void **state)
{
    (void)state;
    xen.call_error = -14; /* -EFAULT */
    queue_update(0);
    assert_false(mc_flush(&batch, &failure));
    assert_int_equal(failure.op, __HYPERVISOR_multicall);
    assert_int_equal(failure.error, -14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_nothing_until_flush, setup),
        cmocka_unit_test_setup(test_extend_args, setup),
        cmocka_unit_test_setup(test_flush_when_updates_full, setup),
        cmocka_unit_test_setup(test_flush_when_entries_full, setup),
        cmocka_unit_test_setup(test_failure_names_the_pte, setup),
        cmocka_unit_test_setup(test_failure_in_implicit_flush, setup),
        cmocka_unit_test_setup(test_failure_of_the_call, setup),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
