/* Uncontended spinlocks: what every lock round trip costs on one CPU.
 * With a backend lock of its own (Xen's queued lock) and pv.spinlock=on,
 * spin_lock() is its cmpxchg inline and spin_unlock() goes through
 * pv_lock_ops (an indirect call), else both are the ticket lock inline;
 * the irqsave form adds three irq call sites (save_fl, irq_disable,
 * restore_fl), the paths where the 2006 patching numbers moved most. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/spinlock.h"
#include "pv/irq.h"

#define LOCK_ITERS 100000

static struct spinlock lock;
static uint64_t rounds_expected;
static unsigned long flags_seen;

static const char *prepare_lock(void)
{
    lock = (struct spinlock){0};
    rounds_expected = 0;
    flags_seen = ~0UL;
    return 0;
}

/* The lock is free; a ticket lock's rounds each took one ticket and
 * served it, so both counters moved by exactly the number of rounds (a
 * queued lock's word is back to 0). */
static const char *check_lock(void)
{
    if (spin_is_locked(&lock))
        return "the lock is still held";
    if (lock.next_ticket && lock.owner != (uint32_t)rounds_expected)
        return "the lock served a different number of tickets";
    if (!(flags_seen & X86_EFLAGS_IF))
        return "spin_lock_irqsave returned flags without IF while enabled";
    if (!(irq_save_flags() & X86_EFLAGS_IF))
        return "interrupts left disabled";
    return 0;
}

static uint64_t measure_lock_unlock(uint64_t n)
{
    rounds_expected += n;
    return BENCH_TIME_LOOP(n, spin_lock(&lock); spin_unlock(&lock));
}

BENCH_DEFINE(spin_lock_unlock, locks, "`spin_lock(); spin_unlock();` uncontended",
             .iters = LOCK_ITERS, .subtract_loop = true, .prepare = prepare_lock,
             .measure = measure_lock_unlock, .check = check_lock);

static uint64_t measure_lock_irqsave(uint64_t n)
{
    unsigned long all = ~0UL;
    uint64_t t = BENCH_TIME_LOOP(n, {
        unsigned long flags = spin_lock_irqsave(&lock);
        all &= flags;
        spin_unlock_irqrestore(&lock, flags);
    });

    rounds_expected += n;
    flags_seen &= all;
    return t;
}

BENCH_DEFINE(spin_lock_irqsave, locks,
             "`spin_unlock_irqrestore(spin_lock_irqsave())`: the lock plus three irq sites",
             .iters = LOCK_ITERS, .subtract_loop = true, .prepare = prepare_lock,
             .measure = measure_lock_irqsave, .check = check_lock);
