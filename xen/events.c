/* Event channels over the 2-level ABI, for both Xen backends. Xen sets a
 * port's bit in shared_info's evtchn_pending, then (unless the port is
 * masked in evtchn_mask) the bit for that word in vcpu_info's
 * evtchn_pending_sel and evtchn_upcall_pending, and then upcalls: a PV
 * guest (unless evtchn_upcall_mask is set) at xen_event_entry, a PVH guest
 * (unless RFLAGS.IF is clear) on its callback vector. The upcall walks
 * selector -> word -> port. */
#include "xen/events.h"

#include "arch/x86/trap_frame.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/string.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/hypercall.h"

#define WORD_BITS (sizeof(xen_ulong_t) * 8)
#define EVTCHN_WORDS (sizeof(xen_shared_info.evtchn_mask) / sizeof(xen_ulong_t))

struct evtchn_handler {
    evtchn_handler_fn fn;
    void *data;
    uint64_t count;
    unsigned cpu; /* the vCPU the port is bound to */
    bool last;    /* VIRQ_TIMER: its handler, the tick, may switch threads */
};

static struct evtchn_handler handlers[EVTCHN_MAX_HANDLED];

/* The ports each vCPU's upcall handles. Xen ABI: evtchn_pending and
 * evtchn_mask are shared by all vCPUs, only the selector is per vCPU, so
 * an upcall must skip the ports bound to another vCPU. A port we did not
 * bind (an interdomain one) notifies vCPU 0. */
static xen_ulong_t cpu_ports[MAX_CPUS][EVTCHN_WORDS];

/* How this backend unmasks a port: xen_events_init's choice. */
static void (*unmask_port)(evtchn_port_t port);

/* Per vCPU: set while its upcall holds ports it took from the pending
 * bitmap and has not dispatched yet (xen_events_dispatching). */
static bool dispatching[MAX_CPUS];
static uint64_t dispatched[MAX_CPUS]; /* handlers each vCPU ran */

static xen_ulong_t port_bit(evtchn_port_t port)
{
    return (xen_ulong_t)1 << (port % WORD_BITS);
}

void xen_evtchn_mask(evtchn_port_t port)
{
    __atomic_fetch_or(&xen_shared_info.evtchn_mask[port / WORD_BITS], port_bit(port),
                      __ATOMIC_SEQ_CST);
}

void xen_evtchn_clear(evtchn_port_t port)
{
    __atomic_fetch_and(&xen_shared_info.evtchn_pending[port / WORD_BITS], ~port_bit(port),
                       __ATOMIC_SEQ_CST);
}

static unsigned port_cpu(evtchn_port_t port)
{
    return port < EVTCHN_MAX_HANDLED ? handlers[port].cpu : 0;
}

/* Xen ABI (common/event_2l.c, evtchn_2l_unmask): EVTCHNOP_unmask raises
 * the upcall on the port's vCPU only if it clears a mask bit it finds
 * set, and the port is pending. So the mask stays set until Xen clears it. */
void xen_evtchn_unmask_by_xen(evtchn_port_t port)
{
    struct evtchn_unmask unmask = {.port = port};

    xen_evtchn_mask(port);
    xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_unmask, &unmask), "EVTCHNOP_unmask");
}

/* Xen ABI: an event sent while its port is masked sets only the pending
 * bit. A PV vCPU can announce it to its own upcall (irq_enable looks at
 * upcall_pending); another vCPU's upcall only Xen can raise. */
void xen_evtchn_unmask_locally(evtchn_port_t port)
{
    unsigned word = port / WORD_BITS;
    xen_ulong_t sel_bit = (xen_ulong_t)1 << word;

    if (port_cpu(port) != cpu_index()) {
        xen_evtchn_unmask_by_xen(port);
        return;
    }
    __atomic_fetch_and(&xen_shared_info.evtchn_mask[word], ~port_bit(port), __ATOMIC_SEQ_CST);
    if (!(__atomic_load_n(&xen_shared_info.evtchn_pending[word], __ATOMIC_SEQ_CST) &
          port_bit(port)))
        return;
    if (!(__atomic_fetch_or(&xen_vcpu->evtchn_pending_sel, sel_bit, __ATOMIC_SEQ_CST) & sel_bit))
        __atomic_store_n(&xen_vcpu->evtchn_upcall_pending, 1, __ATOMIC_SEQ_CST);
}

/* Events masked meanwhile, so the vCPU the backend checks against is the
 * one whose vcpu_info it writes. */
void xen_evtchn_unmask(evtchn_port_t port)
{
    unsigned long flags = irq_save();

    unmask_port(port);
    irq_restore(flags);
}

/* Events masked, so no upcall of this vCPU's takes the event meanwhile. */
bool xen_evtchn_announced(evtchn_port_t port)
{
    unsigned word = port / WORD_BITS;

    return (__atomic_load_n(&xen_shared_info.evtchn_pending[word], __ATOMIC_SEQ_CST) &
            ~__atomic_load_n(&xen_shared_info.evtchn_mask[word], __ATOMIC_SEQ_CST) &
            port_bit(port)) &&
           (__atomic_load_n(&xen_vcpu->evtchn_pending_sel, __ATOMIC_SEQ_CST) >> word & 1) &&
           __atomic_load_n(&xen_vcpu->evtchn_upcall_pending, __ATOMIC_SEQ_CST);
}

/* Xen ABI (common/domain.c, map_vcpu_info): registering a vcpu_info
 * selects every word and sets upcall_pending, a spurious upcall. With
 * every port of this vCPU's masked it can announce nothing real, and
 * dropping it lets a real announcement be told from it. */
bool xen_events_drop_spurious(void)
{
    unsigned cpu = cpu_index();

    for (unsigned w = 0; w < EVTCHN_WORDS; w++)
        if (__atomic_load_n(&cpu_ports[cpu][w], __ATOMIC_ACQUIRE) &
            ~__atomic_load_n(&xen_shared_info.evtchn_mask[w], __ATOMIC_SEQ_CST))
            return false;
    __atomic_store_n(&xen_vcpu->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&xen_vcpu->evtchn_upcall_pending, 0, __ATOMIC_SEQ_CST);
    return true;
}

uint64_t xen_evtchn_count(evtchn_port_t port)
{
    return port < EVTCHN_MAX_HANDLED ? handlers[port].count : 0;
}

uint64_t xen_events_dispatched(void)
{
    return *this_cpu_elem(dispatched);
}

bool xen_events_dispatching(void)
{
    return *this_cpu_elem(dispatching);
}

/* A port bound to another vCPU is refused: its handler would run where
 * its state is not, e.g. an upcall's ports taken before a resume rebound
 * them. */
static void dispatch(evtchn_port_t port, struct trap_frame *f)
{
    struct evtchn_handler *h = port < EVTCHN_MAX_HANDLED ? &handlers[port] : 0;

    if (!h || !h->fn) {
        kprintf("xen: event on port %u, which has no handler: masked\n", port);
        xen_evtchn_mask(port);
        return;
    }
    if (h->cpu != cpu_index()) {
        kprintf("xen: event on port %u, bound to vCPU %u, reached vCPU %u: refused\n", port, h->cpu,
                cpu_index());
        return;
    }
    h->count++;
    dispatched[h->cpu]++;
    h->fn(port, f, h->data);
}

#define HANDLED_WORDS (EVTCHN_MAX_HANDLED / WORD_BITS)

/* Moves the word's ready ports of this vCPU into todo, clearing their
 * pending bits, so an event that arrives before its handler runs is seen
 * again rather than lost. A port with no handler is dealt with at once. */
static void take_word(unsigned cpu, unsigned word, xen_ulong_t *todo, struct trap_frame *f)
{
    xen_ulong_t ready = __atomic_load_n(&xen_shared_info.evtchn_pending[word], __ATOMIC_SEQ_CST) &
                        ~__atomic_load_n(&xen_shared_info.evtchn_mask[word], __ATOMIC_SEQ_CST) &
                        __atomic_load_n(&cpu_ports[cpu][word], __ATOMIC_ACQUIRE);

    __atomic_fetch_and(&xen_shared_info.evtchn_pending[word], ~ready, __ATOMIC_SEQ_CST);
    if (word < HANDLED_WORDS) {
        todo[word] |= ready;
        return;
    }
    for (; ready; ready &= ready - 1)
        dispatch((evtchn_port_t)(word * WORD_BITS + __builtin_ctzl(ready)), f);
}

/* Runs the handlers of the ports in todo, those marked last after the
 * rest: the one tick, which may switch threads, so nothing of this vCPU's
 * is held across it. */
static void run_handlers(unsigned cpu, const xen_ulong_t *todo, struct trap_frame *f)
{
    for (int last = 0; last <= 1; last++) {
        if (last)
            __atomic_store_n(&dispatching[cpu], false, __ATOMIC_RELEASE);
        for (unsigned word = 0; word < HANDLED_WORDS; word++) {
            for (xen_ulong_t ready = todo[word]; ready; ready &= ready - 1) {
                evtchn_port_t port = (evtchn_port_t)(word * WORD_BITS + __builtin_ctzl(ready));
                if (handlers[port].last == last)
                    dispatch(port, f);
            }
        }
    }
}

/* Tour 110: Where events arrive.
 * Xen's upcall lands here with events masked: under PV with the mask byte
 * set, like an interrupt gate; under PVH through one (the callback
 * vector, xen/pvh/irq.c), with RFLAGS.IF clear. The two-level demux: a selector word says which words of evtchn_pending have
 * bits, each set and unmasked bit is a port, each port has a handler. The
 * timer is VIRQ_TIMER bound to a port; its handler calls `timer_interrupt`.
 * Xen ABI: clear evtchn_upcall_pending before reading the selector, and
 * take the selector with an atomic exchange, so a bit Xen sets meanwhile
 * either is in what we took or raises upcall_pending again. The handlers
 * run once this vCPU's part is all taken, the tick's last: the tick may
 * switch threads, and this one may go on later on another vCPU, where
 * nothing of this vCPU's must be left to do (or its next tick is lost). */
void xen_event_upcall(struct trap_frame *f)
{
    struct vcpu_info *v = xen_vcpu;
    unsigned cpu = cpu_index();
    xen_ulong_t todo[HANDLED_WORDS] = {0};

    stack_check();
    __atomic_store_n(&dispatching[cpu], true, __ATOMIC_RELEASE);
    while (__atomic_load_n(&v->evtchn_upcall_pending, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&v->evtchn_upcall_pending, 0, __ATOMIC_SEQ_CST);
        xen_ulong_t sel = __atomic_exchange_n(&v->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
        while (sel) {
            unsigned word = (unsigned)__builtin_ctzl(sel);
            sel &= sel - 1;
            take_word(cpu, word, todo, f);
        }
    }
    run_handlers(cpu, todo, f);
}

/* Gives a freshly bound, still masked port its handler and its vCPU's
 * upcall. */
static evtchn_port_t install_handler(evtchn_port_t port, unsigned cpu, const char *what,
                                     evtchn_handler_fn fn, void *data, bool last)
{
    if (port >= EVTCHN_MAX_HANDLED)
        panic("xen: %s got port %u; only ports below %d can have handlers", what, port,
              EVTCHN_MAX_HANDLED);
    handlers[port] =
        (struct evtchn_handler){.fn = fn, .data = data, .count = 0, .cpu = cpu, .last = last};
    for (unsigned c = 0; c < MAX_CPUS; c++)
        __atomic_fetch_and(&cpu_ports[c][port / WORD_BITS], ~port_bit(port), __ATOMIC_RELEASE);
    __atomic_fetch_or(&cpu_ports[cpu][port / WORD_BITS], port_bit(port), __ATOMIC_RELEASE);
    return port;
}

evtchn_port_t xen_bind_virq(uint32_t virq, unsigned cpu, evtchn_handler_fn fn, void *data)
{
    struct evtchn_bind_virq bind = {.virq = virq, .vcpu = cpu};

    xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_bind_virq, &bind), "event_channel_op bind_virq");
    return install_handler(bind.port, cpu, "a VIRQ", fn, data, virq == VIRQ_TIMER);
}

evtchn_port_t xen_bind_ipi(unsigned cpu, evtchn_handler_fn fn, void *data)
{
    struct evtchn_bind_ipi bind = {.vcpu = cpu};

    xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_bind_ipi, &bind), "event_channel_op bind_ipi");
    return install_handler(bind.port, cpu, "an IPI", fn, data, false);
}

/* Masked first, so no upcall takes it while it goes; an unbound port is
 * vCPU 0's again, as at xen_events_reset. */
void xen_evtchn_close(evtchn_port_t port)
{
    struct evtchn_close close = {.port = port};

    xen_evtchn_mask(port);
    xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_close, &close), "event_channel_op close");
    xen_evtchn_clear(port);
    if (port < EVTCHN_MAX_HANDLED)
        install_handler(port, 0, "a closed port", 0, 0, false);
}

/* Every port starts masked: a port gets events once it has a handler.
 * Until it is bound, every port is vCPU 0's. */
void xen_events_init(void (*unmask)(evtchn_port_t port))
{
    unmask_port = unmask;
    xen_events_reset();
}

/* Xen ABI: a new domain has no port of the old one's bound; the
 * toolstack's restore leaves every port masked, and so do we. */
void xen_events_reset(void)
{
    memset(handlers, 0, sizeof(handlers));
    memset(cpu_ports, 0, sizeof(cpu_ports));
    for (unsigned i = 0; i < EVTCHN_WORDS; i++) {
        __atomic_store_n(&xen_shared_info.evtchn_mask[i], ~(xen_ulong_t)0, __ATOMIC_SEQ_CST);
        cpu_ports[0][i] = ~(xen_ulong_t)0;
    }
}

/* A port a device's backend in domain remote binds its end to (the
 * frontend publishes its number in xenstore); vCPU 0's, masked until
 * xen_evtchn_unmask(). Panics on failure, as the other binds do. */
evtchn_port_t xen_evtchn_alloc_unbound(domid_t remote, evtchn_handler_fn fn, void *data)
{
    struct evtchn_alloc_unbound alloc = {.dom = DOMID_SELF, .remote_dom = remote};

    xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_alloc_unbound, &alloc),
             "event_channel_op alloc_unbound");
    return install_handler(alloc.port, 0, "an unbound port", fn, data, false);
}
