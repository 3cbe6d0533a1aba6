/* Xen's pv queued spinlock: the lock word of kernel/qspinlock.h, an MCS
 * queue of per-CPU nodes behind it, and waiters that block. A ticket lock
 * hands the lock to the next ticket whether or not its vCPU runs; here
 * only the queue's head competes for the word, and while it is not
 * claiming it (the pending bit) an arrival may take the lock first, so a
 * waiter whose vCPU Xen has descheduled holds up no one for long.
 *
 * A waiter spins a bounded time, then blocks (xen/lock.c): the head after
 * turning the locked byte from Q_LOCKED to Q_SLOW, which tells the
 * unlocker to kick it; a waiter further back after saying it halted, so
 * the predecessor that makes it head while holding the lock marks the
 * byte Q_SLOW for it. Only the head is ever kicked, at the unlock it
 * waits for (Linux's pv_wait_head_or_lock and pv_kick_node). */
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/qspinlock.h"
#include "pv/irq.h"
#include "xen/lock_wait.h"

#define SPINS_BEFORE_BLOCKING 1024
#define NODES_PER_CPU 4 /* a thread's wait, and interrupts' nested in it */

struct qnode {
    struct qnode *next;    /* the waiter behind, once it has linked itself */
    struct spinlock *lock; /* waited for, NULL when unused: what unlock scans */
    uint8_t head;          /* set by the predecessor: our turn at the lock word */
    uint8_t halted;        /* blocked, or about to: a hand-over must mark Q_SLOW */
};

static struct qnode qnodes[MAX_CPUS][NODES_PER_CPU];
static unsigned qnode_depth[MAX_CPUS];

static uint16_t tail_of(unsigned cpu, unsigned idx)
{
    return (uint16_t)((cpu + 1) << 2 | idx);
}

static struct qnode *node_of(uint16_t tail)
{
    return &qnodes[(tail >> 2) - 1][tail & 3];
}

/* While a queue waits and its head has not claimed the lock (pending),
 * an arrival may take a free lock ahead of it, for a while, before it
 * queues: so a head whose vCPU Xen has descheduled holds up only itself
 * (Linux's pv_hybrid_queued_unfair_trylock). */
static bool steal(struct spinlock *l)
{
    for (unsigned spins = 0; spins < SPINS_BEFORE_BLOCKING; spins++) {
        uint32_t v = __atomic_load_n(&l->val, __ATOMIC_RELAXED);
        uint8_t free = 0;
        if (!(v & Q_LOCKED_PENDING_MASK)) {
            if (__atomic_compare_exchange_n(&l->locked, &free, Q_LOCKED, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED))
                return true;
            continue;
        }
        if (!(v >> Q_TAIL_SHIFT) || (v & Q_PENDING))
            return false;
        __builtin_ia32_pause();
    }
    return false;
}

/* Blocks until the predecessor makes n the head. The seq_cst store of
 * halted and load of head pair with hand_over's store and load. */
static void wait_for_head(struct qnode *n)
{
    for (;;) {
        for (unsigned spins = 0; spins < SPINS_BEFORE_BLOCKING; spins++) {
            if (__atomic_load_n(&n->head, __ATOMIC_ACQUIRE))
                return;
            __builtin_ia32_pause();
        }
        unsigned long flags = irq_save();
        xen_lock_clear_kick();
        __atomic_store_n(&n->halted, 1, __ATOMIC_SEQ_CST);
        if (!__atomic_load_n(&n->head, __ATOMIC_SEQ_CST))
            xen_lock_block(flags);
        __atomic_store_n(&n->halted, 0, __ATOMIC_RELAXED);
        irq_restore(flags);
    }
}

/* The head blocks only once the locked byte says so (Q_SLOW), so that the
 * unlock kicks it; a free byte means the lock is to be taken instead. */
static void halt_as_head(struct spinlock *l, struct qnode *n)
{
    unsigned long flags = irq_save();
    uint8_t held = Q_LOCKED;

    xen_lock_clear_kick();
    __atomic_store_n(&n->halted, 1, __ATOMIC_SEQ_CST);
    if (__atomic_compare_exchange_n(&l->locked, &held, Q_SLOW, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST) ||
        held == Q_SLOW)
        xen_lock_block(flags);
    __atomic_store_n(&n->halted, 0, __ATOMIC_RELAXED);
    irq_restore(flags);
}

/* The holder passes the head to the next node; if that one has halted,
 * the unlock must kick it, which Q_SLOW asks (we hold the lock, so the
 * byte is ours to write). */
static void hand_over(struct spinlock *l, struct qnode *n)
{
    struct qnode *next;

    while (!(next = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)))
        __builtin_ia32_pause();
    __atomic_store_n(&next->head, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&next->halted, __ATOMIC_SEQ_CST))
        __atomic_store_n(&l->locked, Q_SLOW, __ATOMIC_SEQ_CST);
}

/* As head: claims the lock with the pending bit, so no arrival steals it,
 * and takes it once free, and the tail with it if no one queued behind;
 * before blocking it gives the claim up, so that others keep the lock
 * moving while its vCPU is away. */
static void take_as_head(struct spinlock *l, struct qnode *n, uint16_t me)
{
    __atomic_store_n(&n->head, 1, __ATOMIC_SEQ_CST);
    for (;;) {
        __atomic_fetch_or(&l->val, Q_PENDING, __ATOMIC_RELAXED);
        for (unsigned spins = 0; spins < SPINS_BEFORE_BLOCKING; spins++) {
            uint32_t v = __atomic_load_n(&l->val, __ATOMIC_ACQUIRE);
            if (v & Q_LOCKED) {
                __builtin_ia32_pause();
                continue;
            }
            bool last = (v >> Q_TAIL_SHIFT) == me;
            uint32_t mine = last ? Q_LOCKED : (v & ~Q_PENDING) | Q_LOCKED;
            if (__atomic_compare_exchange_n(&l->val, &v, mine, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED)) {
                if (!last)
                    hand_over(l, n);
                return;
            }
        }
        __atomic_fetch_and(&l->val, ~Q_PENDING, __ATOMIC_RELAXED);
        halt_as_head(l, n);
    }
}

/* Called with the holder's preemption off (spin_lock), so the thread and
 * its node stay on this CPU; a handler that waits meanwhile takes the
 * next node and gives it back before returning. */
void xen_qspinlock_wait(struct spinlock *l, uint32_t seen)
{
    (void)seen;
    unsigned cpu = cpu_index();
    unsigned idx = qnode_depth[cpu]++;
    if (idx >= NODES_PER_CPU)
        panic("qspinlock: waits nested %u deep on CPU %u", idx + 1, cpu);
    struct qnode *n = &qnodes[cpu][idx];
    n->next = NULL;
    n->head = n->halted = 0;
    __atomic_store_n(&n->lock, l, __ATOMIC_SEQ_CST);
    if (!steal(l)) {
        uint16_t me = tail_of(cpu, idx);
        uint16_t prev = __atomic_exchange_n(&l->tail, me, __ATOMIC_ACQ_REL);
        if (prev) {
            __atomic_store_n(&node_of(prev)->next, n, __ATOMIC_RELEASE);
            wait_for_head(n);
        }
        take_as_head(l, n, me);
    }
    __atomic_store_n(&n->lock, NULL, __ATOMIC_RELAXED);
    qnode_depth[cpu]--;
}

/* Only a head halts with the lock held, so only a head is kicked. */
static void kick_head(struct spinlock *l)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        for (unsigned i = 0; i < NODES_PER_CPU; i++) {
            struct qnode *n = &qnodes[cpu][i];
            if (__atomic_load_n(&n->lock, __ATOMIC_SEQ_CST) == l &&
                __atomic_load_n(&n->head, __ATOMIC_SEQ_CST) &&
                __atomic_load_n(&n->halted, __ATOMIC_SEQ_CST)) {
                xen_lock_kick(cpu);
                return;
            }
        }
}

/* Release ordering on the usual path; Q_SLOW means a head halted, and the
 * seq_cst store keeps the scan after it. */
void xen_qspinlock_unlock(struct spinlock *l)
{
    uint8_t held = Q_LOCKED;

    if (__atomic_compare_exchange_n(&l->locked, &held, 0, false, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&l->locked, 0, __ATOMIC_SEQ_CST);
    kick_head(l);
}
