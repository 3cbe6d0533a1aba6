/* The boot self-test of event delivery on unmask, on every vCPU: an event
 * sent while its port is masked must reach the handler once the port is
 * unmasked, whichever vCPU unmasks it. Xen raises no upcall for an event
 * on a masked port, so a backend that unmasks wrongly loses it (a resume
 * rebinds every port masked while other vCPUs may already send). */
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define CROSS_WAIT_NS NSEC_PER_SEC
#define OWN_TRIES 20

struct hits {
    volatile unsigned count;
    volatile unsigned cpu; /* where the handler last ran */
};

static void count_hit(evtchn_port_t port, struct trap_frame *f, void *data)
{
    struct hits *h = data;

    (void)port, (void)f;
    h->cpu = cpu_index();
    h->count++;
}

static void send(evtchn_port_t port)
{
    struct evtchn_send s = {.port = port};

    xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_send, &s), "event_channel_op send");
}

/* One try on this vCPU, events masked throughout: bind masked, send,
 * unmask; then the upcall must be raised, and the handler run once
 * events are on again, before irq_restore returns. Another event of this
 * vCPU's (its tick) raising the upcall meanwhile would hide a lost one:
 * the try then proves nothing (false). */
static bool own_vcpu_once(struct hits *h)
{
    unsigned long flags = irq_save();
    evtchn_port_t port = xen_bind_ipi(cpu_index(), count_hit, h);
    uint64_t before = xen_events_dispatched();
    bool quiet, raised;

    h->count = 0;
    send(port);
    quiet = !__atomic_load_n(&xen_vcpu->evtchn_upcall_pending, __ATOMIC_SEQ_CST);
    xen_evtchn_unmask(port);
    raised = xen_evtchn_announced(port);
    irq_restore(flags);
    xen_evtchn_close(port);
    if (!quiet || xen_events_dispatched() - before != h->count)
        return false;
    if (!raised)
        panic("xen: vCPU %u unmasked its port %u with an event pending, and its upcall was not "
              "raised: the event is lost",
              cpu_index(), port);
    if (h->count != 1)
        panic("xen: an event sent to masked port %u ran its handler %u times once vCPU %u "
              "unmasked it, not once",
              port, h->count, cpu_index());
    return true;
}

static void own_vcpu(void *arg)
{
    for (unsigned try = 0; try < OWN_TRIES; try++)
        if (own_vcpu_once(arg))
            return;
    panic("xen: vCPU %u's other events came during each of %d tries of the unmask self-test",
          cpu_index(), OWN_TRIES);
}

/* From vCPU 0, a port of vCPU cpu: Xen raises cpu's upcall. */
static void other_vcpu(unsigned cpu)
{
    struct hits h = {0};
    evtchn_port_t port = xen_bind_ipi(cpu, count_hit, &h);
    uint64_t end = time_now_ns() + CROSS_WAIT_NS;

    send(port);
    xen_evtchn_unmask(port);
    while (h.count == 0 && time_now_ns() < end)
        thread_yield();
    if (h.count != 1 || h.cpu != cpu)
        panic("xen: an event sent to vCPU %u's masked port %u, unmasked by vCPU 0, ran its "
              "handler %u times (last on vCPU %u) within 1 s, not once there",
              cpu, port, h.count, h.cpu);
    xen_evtchn_close(port);
}

void xen_selftest(void)
{
    static struct hits own[MAX_CPUS];
    unsigned cpus = smp_cpus_online(), mask = 0;

    for (unsigned cpu = 0; cpu < cpus; cpu++) {
        struct thread *t = thread_create_on(cpu, "evtchn-test", own_vcpu, &own[cpu]);
        if (!t)
            panic("xen: no thread slot for the event self-test on vCPU %u", cpu);
        thread_join(t);
        mask |= 1u << cpu;
    }
    for (unsigned cpu = 1; cpu < cpus; cpu++)
        other_vcpu(cpu);
    kprintf("xen: events sent to masked ports delivered on unmask: by their own vCPU (0x%x)%s\n",
            mask, cpus > 1 ? ", by vCPU 0 for the others" : "");
}
