/* A bounded wait for events on one port (backend.h's xen_wait), for code
 * that polls a shared ring with events masked or from a trap context: the
 * console, xenstore, a frontend's early set-up. */
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define WAIT_SLICE_NS 10000000ull /* 10 ms: notices progress nobody signalled */
#define WAIT_POLLS_PER_SLICE 100  /* wake-ups allowed per slice, should the clock stand still */

/* Two budgets: a deadline in this vCPU's Xen system time, the clock of
 * SCHEDOP_poll's timeout, and a number of polls, as the clock reads 0
 * until shared_info is mapped (or jumps, should the thread change vCPU). */
void xen_wait_start(struct xen_wait *w, evtchn_port_t port, uint64_t timeout_ns)
{
    w->port = port;
    w->deadline_ns = xen_local_now_ns() + timeout_ns;
    w->polls_left = timeout_ns / WAIT_SLICE_NS * WAIT_POLLS_PER_SLICE;
}

/* Xen ABI: SCHEDOP_poll returns once a listed port is pending, masked or
 * not, or at the timeout, which is absolute system time (0 means none). */
bool xen_wait_event(struct xen_wait *w)
{
    uint64_t now = xen_local_now_ns();
    struct sched_poll poll = {.nr_ports = 1};

    if (now >= w->deadline_ns || w->polls_left == 0)
        return false;
    w->polls_left--;
    poll.timeout = w->deadline_ns - now > WAIT_SLICE_NS ? now + WAIT_SLICE_NS : w->deadline_ns;
    set_xen_guest_handle(poll.ports, &w->port);
    HYPERVISOR_sched_op(SCHEDOP_poll, &poll);
    xen_evtchn_clear(w->port); /* the caller looks at the ring after this */
    return true;
}
