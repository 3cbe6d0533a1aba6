/* What every vCPU of a Xen domain needs, PV or PVH: its vcpu_info in its
 * per-CPU area and its event ports (timer, IPI, lock kick), bound from
 * the vCPU that starts it, so it enters C with them ready; IPIs as events;
 * and how many vCPUs the domain has. How a vCPU is started differs:
 * xen/pv/smp.c and xen/pvh/smp.c. */
#include "kernel/console.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

/* Each vCPU's ports; its lock kick port is xen/lock.c's. */
struct cpu_ports {
    evtchn_port_t timer; /* its VIRQ_TIMER */
    evtchn_port_t ipi;   /* send_ipi's: ends its SCHEDOP_block or hlt */
};

static struct cpu_ports ports[MAX_CPUS];

/* Xen ABI: VCPUOP_is_up answers -ENOENT for an id the domain lacks, and
 * a domain's vCPU ids run from 0 without a gap. */
unsigned xen_cpus_possible(void)
{
    unsigned n = 0;

    for (; n < MAX_CPUS; n++) {
        long rc = HYPERVISOR_vcpu_op(VCPUOP_is_up, n, 0);
        if (rc == -XEN_ENOENT)
            break;
        if (rc < 0) {
            kprintf("smp: VCPUOP_is_up for vCPU %u failed with Xen error %ld\n", n, rc);
            break;
        }
    }
    return n ? n : 1;
}

/* Xen keeps only the first vCPUs' vcpu_info in shared_info (XEN_LEGACY_MAX_VCPUS)
 * and at a fixed address; registered inside the per-CPU area instead, any
 * vCPU's sits at the same %gs: offset. Xen copies the current contents over
 * and refuses a block that crosses a page. */
void xen_vcpu_info_register(unsigned cpu)
{
    uint64_t frame = xen_frame_of(percpu_areas[cpu].platform);
    struct vcpu_register_vcpu_info info = {
        .mfn = frame, .offset = (uint32_t)((uint64_t)percpu_areas[cpu].platform & 0xfff)};

    xen_must(HYPERVISOR_vcpu_op(VCPUOP_register_vcpu_info, cpu, &info),
             "VCPUOP_register_vcpu_info");
}

/* Both backends start a vCPU with the same two hypercalls; they differ in
 * the context and in what must happen between the two (between may be
 * NULL). Each start's description stays readable after the call. */
const char *xen_vcpu_initialise_and_up(unsigned cpu, void *context, void (*between)(unsigned))
{
    static char descriptions[MAX_CPUS][48];
    long rc = HYPERVISOR_vcpu_op(VCPUOP_initialise, cpu, context);
    const char *op = "VCPUOP_initialise";

    if (rc >= 0) {
        if (between)
            between(cpu);
        op = "VCPUOP_up";
        rc = HYPERVISOR_vcpu_op(VCPUOP_up, cpu, 0);
    }
    if (rc < 0) {
        kprintf("smp: cpu %u: %s failed with Xen error %ld\n", cpu, op, rc);
        return 0;
    }
    ksnprintf(descriptions[cpu], sizeof(descriptions[cpu]),
              "vCPU %u, VCPUOP_initialise + VCPUOP_up", cpu);
    return descriptions[cpu];
}

/* Ending SCHEDOP_block was done by the event itself; a sync may want more. */
static void ipi_event(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data;
    smp_ipi_arrived();
}

void xen_cpu_ports_init(unsigned cpu)
{
    ports[cpu].timer = xen_timer_init(cpu);
    ports[cpu].ipi = xen_bind_ipi(cpu, ipi_event, 0);
    xen_spinlock_init(cpu); /* its kick port stays masked: polled, never delivered */
}

/* With events masked: the scheduler's irq_enable delivers what is pending. */
void xen_cpu_ports_unmask(unsigned cpu)
{
    xen_evtchn_unmask(ports[cpu].timer);
    xen_evtchn_unmask(ports[cpu].ipi);
}

bool xen_ipi_announced(unsigned cpu)
{
    return xen_evtchn_announced(ports[cpu].ipi);
}

/* Xen ABI: an event on a port bound to a vCPU ends its SCHEDOP_block. */
void xen_send_ipi(unsigned cpu)
{
    struct evtchn_send send = {.port = ports[cpu].ipi};

    if (send.port != 0) /* Xen never binds port 0: cpu was never started */
        xen_must(HYPERVISOR_event_channel_op(EVTCHNOP_send, &send), "event_channel_op send IPI");
}
