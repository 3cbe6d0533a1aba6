/* The blocking ticket lock (kernel/pv_ticket_lock.h): the 2009 pvops
 * spinlock idea, and Linux's per-CPU "lock_waiting" record. */
#include "kernel/pv_ticket_lock.h"

#include <stdbool.h>
#include <stddef.h>

#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/preempt.h"
#include "kernel/ticket_lock.h"
#include "pv/irq.h"

#define SPINS_BEFORE_BLOCKING 1024
/* A thread's wait, and interrupts' nested in it: a blocker may take
 * interrupts while it blocks (KVM's halt does). */
#define WAIT_DEPTH 4

/* What a vCPU blocks for: lock NULL when nothing. */
struct ticket_wait {
    uint32_t ticket;
    struct spinlock *lock;
};

static const struct ticket_blocker *blocker;
static struct ticket_wait waits[MAX_CPUS][WAIT_DEPTH];
static unsigned depth[MAX_CPUS];
static uint32_t waiters; /* records set: unlocks scan only then */

void ticket_blocker_use(const struct ticket_blocker *b)
{
    blocker = b;
}

/* Records which ticket this vCPU waits for, checks the lock once more,
 * and blocks. Interrupts are off around the record, and preemption too
 * when the caller had interrupts on (a blocker may open them, and the
 * tick then preempt), so the record is this vCPU's throughout; with them
 * off (the scheduler's own lock) nothing can preempt, and enabling
 * preemption here could switch threads. The seq_cst store, add and load
 * pair with pv_ticket_unlock's: either it sees our record, or we see its
 * owner. */
static void block_for_ticket(struct spinlock *l, uint32_t mine)
{
    unsigned long flags = irq_save();
    bool irqs_on = flags & X86_EFLAGS_IF;

    if (irqs_on)
        preempt_disable();
    unsigned cpu = cpu_index();
    if (depth[cpu] == WAIT_DEPTH)
        panic("spinlock: waits nested %u deep on CPU %u", WAIT_DEPTH + 1, cpu);
    struct ticket_wait *w = &waits[cpu][depth[cpu]++];
    if (blocker->arm)
        blocker->arm();
    w->ticket = mine;
    __atomic_store_n(&w->lock, l, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&l->owner, __ATOMIC_SEQ_CST) != mine)
        blocker->block(flags);
    __atomic_store_n(&w->lock, NULL, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    depth[cpu]--;
    irq_restore(flags);
    if (irqs_on)
        preempt_enable();
}

void pv_ticket_wait(struct spinlock *l, uint32_t mine)
{
    for (unsigned spins = 0; !ticket_served(l, mine); spins++) {
        if (spins < SPINS_BEFORE_BLOCKING || !blocker) {
            __builtin_ia32_pause();
            continue;
        }
        block_for_ticket(l, mine);
        spins = 0;
    }
}

/* Tickets are served in order: only the holder of `next` may go, so only
 * its vCPU is kicked. */
static void kick_next(struct spinlock *l, uint32_t next)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        for (unsigned i = 0; i < WAIT_DEPTH; i++) {
            struct ticket_wait *w = &waits[cpu][i];
            if (__atomic_load_n(&w->lock, __ATOMIC_SEQ_CST) == l &&
                __atomic_load_n(&w->ticket, __ATOMIC_RELAXED) == next) {
                blocker->kick(cpu);
                return;
            }
        }
}

/* seq_cst, not release: the owner store must not pass the load of
 * waiters (x86 reorders a store after a later load). */
void pv_ticket_unlock(struct spinlock *l)
{
    uint32_t next = l->owner + 1;

    __atomic_store_n(&l->owner, next, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST))
        kick_next(l, next);
}
