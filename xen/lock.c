/* Xen's pv spinlocks: a waiter that has spun a while blocks its vCPU in
 * SCHEDOP_poll on its own kick port instead of burning the time slice of
 * a holder Xen may have descheduled, and the unlocker kicks it with
 * EVTCHNOP_send. Two locks share this: the queued lock, the default
 * (xen/qspinlock.c), and the blocking ticket lock
 * (kernel/pv_ticket_lock.c, KVM's too), kept for comparison. */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/pv_ticket_lock.h"
#include "kernel/spinlock.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/lock_wait.h"

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

static const struct ticket_blocker xen_ticket_blocker = {
    .arm = xen_lock_clear_kick,
    .block = xen_lock_block,
    .kick = xen_lock_kick,
};

static const struct pv_lock_ops xen_ticket_lock_ops = {
    .name = "xen blocking ticket",
    .wait = pv_ticket_wait,
    .unlock = pv_ticket_unlock,
    .blocked = xen_lock_blocked,
    .kicked = xen_lock_kicked,
};

/* xen.lock=ticket: before any lock is contended, so every lock is a
 * ticket lock from the start. */
static void xen_lock_setup(void)
{
    if (xen_lock_choice == XEN_LOCK_TICKET) {
        ticket_blocker_use(&xen_ticket_blocker);
        pv_lock_ops = xen_ticket_lock_ops;
    }
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
