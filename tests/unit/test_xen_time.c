/* xen/system_time.c: Xen's TSC-to-nanoseconds scaling against a plain
 * 128-bit reference, over shifts both ways, extreme multipliers and
 * deltas, and the snapshot arithmetic around it; the clock's offset over
 * a domain's moves between hosts. xen/vcpu_clock.h: one vCPU's record
 * read with its own TSC, in a model where a thread moves between vCPUs
 * wherever interrupts would let it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "xen/system_time.h"
#include "arch/x86/pvclock.h"

/* The formula of <xen/xen.h>, written the obvious way: shift in 64 bits,
 * multiply in 128, keep bits 32..95. */
static uint64_t reference(uint64_t delta, uint32_t mul, int8_t shift)
{
    if (shift <= -64 || shift >= 64)
        return 0;
    delta = shift < 0 ? delta >> -shift : delta << shift;
    return (uint64_t)(((unsigned __int128)delta * mul) >> 32);
}

/* xorshift64: the same pseudo-random sequence on every run. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void test_known_frequencies(void **state)
{
    (void)state;
    /* 1 GHz: mul 2^31 with shift 1 is one ns per tick. */
    assert_int_equal(pvclock_scale_delta(1000000000, 1u << 31, 1), 1000000000);
    /* 2 GHz: mul 2^31, shift 0, half a ns per tick. */
    assert_int_equal(pvclock_scale_delta(2000000000, 1u << 31, 0), 1000000000);
    /* 3 GHz as Xen encodes it: (10^9 << 32) / 3e9 with shift 0. */
    assert_int_equal(pvclock_scale_delta(3000000000u, 1431655765u, 0), 999999999);
    assert_int_equal(pvclock_scale_delta(0, 0xffffffffu, 5), 0);
}

static void test_matches_reference_everywhere(void **state)
{
    uint64_t rng = 0x9e3779b97f4a7c15ULL;

    (void)state;
    for (int shift = -40; shift <= 40; shift++) {
        for (int i = 0; i < 5000; i++) {
            uint64_t delta = next_random(&rng);
            uint32_t mul = (uint32_t)next_random(&rng);
            /* Small deltas too: the common case between two timer ticks. */
            if (i % 3 == 0)
                delta >>= next_random(&rng) % 64;
            assert_int_equal(pvclock_scale_delta(delta, mul, (int8_t)shift),
                             reference(delta, mul, (int8_t)shift));
        }
    }
}

static void test_extremes(void **state)
{
    const uint64_t deltas[] = {0, 1, 0xffffffffULL, 0x100000000ULL, UINT64_MAX, UINT64_MAX / 3};
    const uint32_t muls[] = {0, 1, 0x80000000u, 0xffffffffu};
    const int8_t shifts[] = {-128, -64, -63, -1, 0, 1, 31, 63, 64, 127};

    (void)state;
    for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++)
        for (size_t m = 0; m < sizeof(muls) / sizeof(muls[0]); m++)
            for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++)
                assert_int_equal(pvclock_scale_delta(deltas[d], muls[m], shifts[s]),
                                 reference(deltas[d], muls[m], shifts[s]));
    /* The largest product: every bit of the 96 in use, none lost. */
    assert_int_equal(pvclock_scale_delta(UINT64_MAX, 0xffffffffu, 0), 0xfffffffeffffffffULL);
}

static void test_system_time(void **state)
{
    struct vcpu_time_info t = {
        .tsc_timestamp = 1000000,
        .system_time = 5000000000ULL,
        .tsc_to_system_mul = 1u << 31,
        .tsc_shift = 1,
    };

    (void)state;
    assert_int_equal(pvclock_ns(&t, 1000000), 5000000000ULL);
    assert_int_equal(pvclock_ns(&t, 1000250), 5000000250ULL);
    /* A TSC from before the snapshot: no time passed, never backwards. */
    assert_int_equal(pvclock_ns(&t, 999999), 5000000000ULL);
    assert_int_equal(pvclock_ns(&t, 0), 5000000000ULL);
}

/* A domU with an emulated TSC, created 551 ms after Xen's last time
 * calibration, as one was seen: its TSC counts from 0 at creation, so the
 * calibration's tsc_timestamp is 551301636 ticks below zero, and a TSC of
 * 262056467 is 813358103 ticks (1 GHz: ns) after it, not before. */
static void test_system_time_negative_timestamp(void **state)
{
    struct vcpu_time_info t = {
        .tsc_timestamp = 18446744073158249980ULL, /* -551301636 */
        .system_time = 3392423350ULL,
        .tsc_to_system_mul = 1u << 31,
        .tsc_shift = 1,
    };

    (void)state;
    assert_int_equal(pvclock_ns(&t, 262056467), 3392423350ULL + 813358103);
    assert_int_equal(pvclock_ns(&t, 0), 3392423350ULL + 551301636);
    assert_int_equal(pvclock_ns(&t, t.tsc_timestamp), 3392423350ULL);
    assert_int_equal(pvclock_ns(&t, t.tsc_timestamp - 1), 3392423350ULL);
}

/* Two vCPUs on physical CPUs whose TSCs differ by 5 s of ticks at 1 GHz
 * (no TSC_STABLE): each record scales its own vCPU's TSC, so either
 * vCPU's own pair reads the same time, and a mixed pair is 5 s off. */
#define MODEL_SKEW 5000000000ULL
static struct vcpu_time_info model_records[2];
static struct {
    uint64_t host_tsc;  /* vCPU n's TSC is this plus n * MODEL_SKEW */
    unsigned cpu;       /* the vCPU the reading thread is on */
    bool irqs_on;       /* the reader's interrupt flag */
    bool move_at_tsc;   /* a preemption is due just before the next TSC read */
    bool update_at_tsc; /* Xen is due to rewrite the record during the next TSC read */
    unsigned tsc_reads;
} model;

static unsigned long model_irq_save(void)
{
    unsigned long was = model.irqs_on;

    model.irqs_on = false;
    return was;
}

static void model_irq_restore(unsigned long flags)
{
    model.irqs_on = flags != 0;
}

static unsigned model_cpu(void)
{
    return model.cpu;
}

static const volatile struct vcpu_time_info *model_record(unsigned cpu)
{
    return &model_records[cpu];
}

/* With interrupts on, a due preemption moves the thread to the other
 * vCPU for this read, and another moves it back at once: a vCPU checked
 * before and after the pair reads the same. */
static uint64_t model_tsc(void)
{
    unsigned cpu = model.cpu;

    model.tsc_reads++;
    if (model.irqs_on && model.move_at_tsc) {
        model.move_at_tsc = false;
        cpu = 1 - cpu;
    }
    if (model.update_at_tsc) {
        model.update_at_tsc = false;
        model_records[cpu].version += 2;       /* Xen's whole update, odd and back */
        model_records[cpu].system_time += 100; /* a correction of 100 ns */
    }
    return model.host_tsc + cpu * MODEL_SKEW;
}

static const struct pvclock_hooks model_hooks = {
    .irq_save = model_irq_save,
    .irq_restore = model_irq_restore,
    .cpu = model_cpu,
    .record = model_record,
    .tsc = model_tsc,
};

static int model_setup(void **state)
{
    (void)state;
    for (unsigned cpu = 0; cpu < 2; cpu++)
        model_records[cpu] = (struct vcpu_time_info){.version = 2,
                                                     .tsc_timestamp = 1000 + cpu * MODEL_SKEW,
                                                     .system_time = 1000000000ULL,
                                                     .tsc_to_system_mul = 1u << 31,
                                                     .tsc_shift = 1};
    memset(&model, 0, sizeof(model));
    model.host_tsc = 1000 + 250;
    model.irqs_on = true;
    return 0;
}

/* The race: the record of vCPU 0, the TSC of vCPU 1, the thread back on
 * vCPU 0 before anyone looks. The pair must be one vCPU's. */
static void test_clock_moved_thread(void **state)
{
    uint8_t flags;

    (void)state;
    model.move_at_tsc = true;
    assert_int_equal(pvclock_cpu_ns(&model_hooks, &flags), 1000000250ULL);
    assert_true(model.irqs_on);
}

static void test_clock_keeps_irqs_off(void **state)
{
    uint8_t flags;

    (void)state;
    model.irqs_on = false;
    assert_int_equal(pvclock_cpu_ns(&model_hooks, &flags), 1000000250ULL);
    assert_false(model.irqs_on);
}

/* Xen corrected the record while it was read: the version changed, so
 * the pair is read again, and the time is the corrected record's. */
static void test_clock_torn_record(void **state)
{
    uint8_t flags;

    (void)state;
    model.update_at_tsc = true;
    assert_int_equal(pvclock_cpu_ns(&model_hooks, &flags), 1000000350ULL);
    assert_int_equal(model.tsc_reads, 2);
}

#define SEC 1000000000ULL

/* A host, by the wall-clock time its Xen booted: its system time at wall
 * time w is w minus that. */
struct host {
    uint64_t boot_wall_s;
};

static uint64_t system_at(const struct host *h, uint64_t wall_s)
{
    return (wall_s - h->boot_wall_s) * SEC;
}

/* A domain's clock, moved as xen/time.c moves it: its offset over the
 * host's system time set afresh at each resume. */
struct domain_clock {
    int64_t offset;
    struct xen_clock_stop stop;
};

static uint64_t clock_at(const struct domain_clock *d, const struct host *h, uint64_t wall_s)
{
    return system_at(h, wall_s) + (uint64_t)d->offset;
}

static void suspend_at(struct domain_clock *d, const struct host *h, uint64_t wall_s)
{
    d->stop = (struct xen_clock_stop){clock_at(d, h, wall_s), wall_s * SEC};
}

static void resume_at(struct domain_clock *d, const struct host *h, uint64_t wall_s)
{
    d->offset = xen_resume_offset(&d->stop, system_at(h, wall_s), wall_s * SEC);
}

/* A, then B, then A again: 10 s on A, a 1 s pause, 10 s on B, a 2 s
 * pause, back on A, where the clock reads A's system time again as if it
 * had never left, whether B's system time was behind A's or ahead. */
static void a_b_a(uint64_t b_boot_wall_s)
{
    struct host a = {1000}, b = {b_boot_wall_s};
    struct domain_clock d = {0, {0, 0}};

    assert_int_equal(clock_at(&d, &a, 2000), 1000 * SEC);
    suspend_at(&d, &a, 2010);
    resume_at(&d, &b, 2011);
    assert_int_equal(clock_at(&d, &b, 2011), 1011 * SEC);
    suspend_at(&d, &b, 2021);
    assert_int_equal(d.stop.clock_ns, 1021 * SEC);
    resume_at(&d, &a, 2023);
    assert_int_equal(clock_at(&d, &a, 2023), 1023 * SEC);
    assert_int_equal(d.offset, 0);
}

static void test_resume_a_b_a_behind(void **state)
{
    (void)state;
    a_b_a(1400);
}

static void test_resume_a_b_a_ahead(void **state)
{
    (void)state;
    a_b_a(600);
}

/* The same host: the clock moved on by the pause; a wall clock set back
 * while the domain was away counts no pause, and the clock goes on from
 * where it stopped, never back. */
static void test_resume_same_host(void **state)
{
    struct host a = {1000};
    struct domain_clock d = {0, {0, 0}};

    (void)state;
    suspend_at(&d, &a, 2010);
    resume_at(&d, &a, 2015);
    assert_int_equal(d.offset, 0);
    suspend_at(&d, &a, 2020);
    d.stop.wall_ns += 60 * SEC; /* as if the wall clock were set back 60 s */
    resume_at(&d, &a, 2030);
    assert_int_equal(clock_at(&d, &a, 2030), 1020 * SEC);
    assert_true(d.offset < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_frequencies),
        cmocka_unit_test(test_matches_reference_everywhere),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_system_time),
        cmocka_unit_test(test_system_time_negative_timestamp),
        cmocka_unit_test_setup(test_clock_moved_thread, model_setup),
        cmocka_unit_test_setup(test_clock_keeps_irqs_off, model_setup),
        cmocka_unit_test_setup(test_clock_torn_record, model_setup),
        cmocka_unit_test(test_resume_a_b_a_behind),
        cmocka_unit_test(test_resume_a_b_a_ahead),
        cmocka_unit_test(test_resume_same_host),
    };

    setvbuf(stdout, NULL, _IONBF, 0); /* keep cmocka's stdout and stderr lines in order */
    return cmocka_run_group_tests_name("xen_time", tests, NULL, NULL);
}
