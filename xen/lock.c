/* Xen's pv spinlocks: a waiter that has spun a while blocks its vCPU in
 * SCHEDOP_poll on its own kick port instead of burning the time slice of
 * a holder Xen may have descheduled, and the unlocker kicks it with
 * EVTCHNOP_send. Two locks share this: the queued lock, the default
 * (xen/qspinlock.c), and the ticket lock (the 2009 pvops/spinlock idea,
 * and Linux's per-CPU "lock_waiting" record), kept for comparison. */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/spinlock.h"
#include "kernel/ticket_lock.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/lock_wait.h"

#define SPINS_BEFORE_BLOCKING 1024
/* On one vCPU the holder runs only after our slice ends, which a poll
 * cannot notice: so each poll is bounded, and the waiter spins between. */
#define POLL_TIMEOUT_NS 1000000

enum { XEN_LOCK_QUEUED, XEN_LOCK_TICKET };
static const char *const xen_lock_choices[] = {"queued", "ticket", 0};
static int xen_lock_choice = XEN_LOCK_QUEUED;
OPTION_ENUM_WHERE(PV_CAP_XEN, xen_lock_choice, "xen.lock", xen_lock_choices,
                  "Xen's pv spinlock: the queued lock (pv qspinlock) or the blocking ticket lock");
/* Which lock every contended benchmark measured; queued is usual. */
BENCH_CONFIG_OPTION_UNLESS(xen_lock, PV_CAP_XEN, "xen.lock", "queued");

static evtchn_port_t kick_ports[MAX_CPUS]; /* bound to their vCPU, always masked */
static volatile uint64_t blocked_count, kick_count;

static void kick_port_unused(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data; /* masked: Xen never delivers it */
}

void xen_lock_clear_kick(void)
{
    xen_evtchn_clear(*this_cpu_elem(kick_ports));
}

/* An event the caller would take now, were events not masked for the
 * wait: blocking would hold it back. Xen ABI: while it stays pending, a
 * new event no longer wakes a poll (only the pending edge kicks the vCPU).
 * Xen ABI: SCHEDOP_poll returns once a listed port is pending, even while
 * masked, or at the timeout, in this vCPU's own system time. */
void xen_lock_block(unsigned long flags)
{
    evtchn_port_t port = *this_cpu_elem(kick_ports);
    struct sched_poll poll = {.nr_ports = 1, .timeout = xen_local_now_ns() + POLL_TIMEOUT_NS};

    if ((flags & X86_EFLAGS_IF) &&
        __atomic_load_n(&xen_vcpu->evtchn_upcall_pending, __ATOMIC_RELAXED))
        return;
    set_xen_guest_handle(poll.ports, &port);
    __atomic_add_fetch(&blocked_count, 1, __ATOMIC_RELAXED);
    HYPERVISOR_sched_op(SCHEDOP_poll, &poll);
}

void xen_lock_kick(unsigned cpu)
{
    struct evtchn_send send = {.port = kick_ports[cpu]};

    __atomic_add_fetch(&kick_count, 1, __ATOMIC_RELAXED);
    HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
}

/* ---- The ticket lock. */

/* What each vCPU blocks for: lock NULL when nothing. */
struct ticket_wait {
    uint32_t ticket;
    struct spinlock *lock;
};

static struct ticket_wait ticket_waits[MAX_CPUS];
static uint32_t waiters; /* vCPUs with a lock set: unlocks look only then */

/* Says which ticket this vCPU waits for, checks the lock once more, and
 * blocks. Events stay masked throughout, so the thread cannot move to
 * another vCPU and no handler here can wait on a lock meanwhile: the
 * record and the port are this vCPU's. The seq_cst store, add and load
 * pair with ticket_unlock_kick's: either it sees our record, or we see
 * its owner. */
static void wait_for_ticket(struct spinlock *l, uint32_t mine)
{
    unsigned long flags = irq_save();
    struct ticket_wait *w = this_cpu_elem(ticket_waits);
    xen_lock_clear_kick();
    w->ticket = mine;
    __atomic_store_n(&w->lock, l, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&l->owner, __ATOMIC_SEQ_CST) != mine)
        xen_lock_block(flags);
    __atomic_store_n(&w->lock, NULL, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    irq_restore(flags);
}

static void ticket_lock_wait(struct spinlock *l, uint32_t mine)
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
        struct ticket_wait *w = &ticket_waits[cpu];
        if (__atomic_load_n(&w->lock, __ATOMIC_SEQ_CST) == l &&
            __atomic_load_n(&w->ticket, __ATOMIC_RELAXED) == next) {
            xen_lock_kick(cpu);
            return;
        }
    }
}

/* seq_cst, not release: the owner store must not pass the load of
 * waiters (x86 reorders a store after a later load). */
static void ticket_unlock_kick(struct spinlock *l)
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
    kick_ports[cpu] = xen_bind_ipi(cpu, kick_port_unused, 0);
}

static const struct pv_lock_ops xen_ticket_lock_ops = {
    .name = "xen blocking ticket",
    .wait = ticket_lock_wait,
    .unlock = ticket_unlock_kick,
    .blocked = xen_lock_blocked,
    .kicked = xen_lock_kicked,
};

/* xen.lock=ticket: before any lock is contended, so every lock is a
 * ticket lock from the start. */
static void xen_lock_setup(void)
{
    if (xen_lock_choice == XEN_LOCK_TICKET)
        pv_lock_ops = xen_ticket_lock_ops;
}

const struct pv_lock_ops xen_lock_ops = {
    .name = "xen pv qspinlock",
    .queued = true,
    .wait = xen_qspinlock_wait,
    .unlock = xen_qspinlock_unlock,
    .setup = xen_lock_setup,
    .blocked = xen_lock_blocked,
    .kicked = xen_lock_kicked,
};
