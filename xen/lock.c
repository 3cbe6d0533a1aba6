/* Xen's pv spinlock ops: a ticket lock whose waiter, after a short spin,
 * blocks its vCPU in SCHEDOP_poll on its own kick port instead of burning
 * the time slice of a holder Xen may have descheduled; the unlocker kicks
 * the one vCPU waiting for the next ticket with EVTCHNOP_send (the 2009
 * pvops/spinlock idea, and Linux's per-CPU "lock_waiting" record). */
#include "kernel/spinlock.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define SPINS_BEFORE_BLOCKING 1024
/* On one vCPU the holder runs only after our slice ends, which a poll
 * cannot notice: so each poll is bounded, and the waiter spins between. */
#define POLL_TIMEOUT_NS 1000000

/* What each vCPU blocks for: lock NULL when nothing. */
struct lock_cpu {
    evtchn_port_t kick_port; /* bound to this vCPU, always masked */
    uint32_t ticket;
    struct spinlock *lock;
};

static struct lock_cpu lock_cpus[MAX_CPUS];
static uint32_t waiters; /* vCPUs with a lock set: unlocks look only then */
static volatile uint64_t blocked_count, kick_count;

static void kick_port_unused(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data; /* masked: Xen never delivers it */
}

/* Xen ABI: SCHEDOP_poll returns once a listed port is pending, even while
 * masked, or at the timeout, in this vCPU's own system time. */
static void block_until_kicked(evtchn_port_t port)
{
    struct sched_poll poll = {.nr_ports = 1, .timeout = xen_local_now_ns() + POLL_TIMEOUT_NS};

    set_xen_guest_handle(poll.ports, &port);
    __atomic_add_fetch(&blocked_count, 1, __ATOMIC_RELAXED);
    HYPERVISOR_sched_op(SCHEDOP_poll, &poll);
}

/* An event the caller would take now, were events not masked for the
 * wait: blocking would hold it back. Xen ABI: while it stays pending, a
 * new event no longer wakes a poll (only the pending edge kicks the vCPU). */
static bool event_waiting(unsigned long flags)
{
    return (flags & X86_EFLAGS_IF) &&
           __atomic_load_n(&xen_vcpu->evtchn_upcall_pending, __ATOMIC_RELAXED);
}

/* Says which ticket this vCPU waits for, checks the lock once more, and
 * blocks. Events stay masked throughout, so the thread cannot move to
 * another vCPU and no handler here can wait on a lock meanwhile: the
 * record and the port are this vCPU's. The seq_cst store, add and load
 * pair with xen_unlock's: either it sees our record, or we see its owner. */
static void wait_for_ticket(struct spinlock *l, uint32_t mine)
{
    unsigned long flags = irq_save();
    struct lock_cpu *c = &lock_cpus[cpu_index()];
    xen_evtchn_clear(c->kick_port); /* a late kick from an earlier wait */
    c->ticket = mine;
    __atomic_store_n(&c->lock, l, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&l->owner, __ATOMIC_SEQ_CST) != mine && !event_waiting(flags))
        block_until_kicked(c->kick_port);
    __atomic_store_n(&c->lock, NULL, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    irq_restore(flags);
}

static void xen_lock_wait(struct spinlock *l, uint32_t mine)
{
    for (unsigned spins = 0; __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != mine; spins++) {
        if (spins < SPINS_BEFORE_BLOCKING) {
            __builtin_ia32_pause();
            continue;
        }
        wait_for_ticket(l, mine);
        spins = 0;
    }
}

/* Tickets are served in order: only the holder of `next` may go, so only
 * its vCPU is kicked. */
static void kick_next(struct spinlock *l, uint32_t next)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        struct lock_cpu *c = &lock_cpus[cpu];
        if (__atomic_load_n(&c->lock, __ATOMIC_SEQ_CST) == l &&
            __atomic_load_n(&c->ticket, __ATOMIC_RELAXED) == next) {
            struct evtchn_send send = {.port = c->kick_port};
            __atomic_add_fetch(&kick_count, 1, __ATOMIC_RELAXED);
            HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
            return;
        }
    }
}

/* seq_cst, not release: the owner store must not pass the load of
 * waiters (x86 reorders a store after a later load). */
static void xen_unlock(struct spinlock *l)
{
    uint32_t next = l->owner + 1;

    __atomic_store_n(&l->owner, next, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST))
        kick_next(l, next);
}

static uint64_t xen_lock_blocked(void)
{
    return blocked_count;
}

static uint64_t xen_lock_kicked(void)
{
    return kick_count;
}

/* cpu's kick port. Xen ABI: SCHEDOP_poll sees a port pending whichever
 * vCPU it is bound to; binding it to cpu keeps the kick there should it
 * ever be unmasked. */
void xen_spinlock_init(unsigned cpu)
{
    lock_cpus[cpu].kick_port = xen_bind_ipi(cpu, kick_port_unused, 0);
}

const struct pv_lock_ops xen_lock_ops = {
    .name = "xen blocking ticket",
    .wait = xen_lock_wait,
    .unlock = xen_unlock,
    .blocked = xen_lock_blocked,
    .kicked = xen_lock_kicked,
};
