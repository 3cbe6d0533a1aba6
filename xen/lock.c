/* Xen's pv spinlock ops: a ticket lock whose waiter, after a short spin,
 * blocks its vCPU in SCHEDOP_poll on a kick port instead of burning the
 * time slice of a holder Xen may have descheduled; the unlocker kicks it
 * with EVTCHNOP_send when someone waits (the 2009 pvops/spinlock idea). */
#include "kernel/spinlock.h"
#include "kernel/time.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define SPINS_BEFORE_BLOCKING 1024
/* On one vCPU the holder runs only after our slice ends, which a poll
 * cannot notice: so each poll is bounded, and the waiter spins between. */
#define POLL_TIMEOUT_NS 1000000

static evtchn_port_t kick_port;
static volatile uint32_t waiters;
static volatile uint64_t blocked_count, kick_count;

static void kick_port_unused(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data; /* masked: Xen never delivers it */
}

/* Xen ABI: SCHEDOP_poll returns once a listed port is pending, even while
 * masked, or at the (absolute system time) timeout. */
static void block_until_kicked(void)
{
    struct sched_poll poll = {.nr_ports = 1, .timeout = time_now_ns() + POLL_TIMEOUT_NS};

    set_xen_guest_handle(poll.ports, &kick_port);
    blocked_count++;
    HYPERVISOR_sched_op(SCHEDOP_poll, &poll);
    xen_evtchn_clear(kick_port);
}

static void xen_lock(struct spinlock *l)
{
    uint32_t mine = __atomic_fetch_add(&l->next_ticket, 1, __ATOMIC_RELAXED);

    for (unsigned spins = 0; __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != mine; spins++) {
        if (spins < SPINS_BEFORE_BLOCKING) {
            __builtin_ia32_pause();
            continue;
        }
        __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != mine) /* a kick may have come */
            block_until_kicked();
        __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
        spins = 0;
    }
}

static void xen_unlock(struct spinlock *l)
{
    __atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST)) {
        struct evtchn_send send = {.port = kick_port};
        kick_count++;
        HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
    }
}

static uint64_t xen_lock_blocked(void)
{
    return blocked_count;
}

void xen_spinlock_init(void)
{
    kick_port = xen_bind_ipi(kick_port_unused, 0);
    xen_evtchn_mask(kick_port);
}

const struct pv_lock_ops xen_lock_ops = {
    .name = "xen blocking ticket",
    .lock = xen_lock,
    .unlock = xen_unlock,
    .blocked = xen_lock_blocked,
};
