/* A Xen domU's side of its lifecycle, for both backends: the toolstack
 * asks through xenstore's control/shutdown (libxl writes "suspend",
 * "poweroff" or "reboot" there; the guest acknowledges by clearing it),
 * and what every resume in a new domain redoes whatever the backend:
 * the new domain has no event channel bound, no watch set, and its
 * console and xenstore rings may sit in other frames behind new ports.
 * How a backend suspends is its own: xen/pv/suspend.c, xen/pvh/suspend.c. */
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/lifecycle.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/xenstore.h"

#define CONTROL_NODE "control/shutdown"
#define WATCH_TOKEN "patchbay-lifecycle"

/* Sets the watch, then says we answer suspend requests: Linux writes
 * control/feature-suspend too, and tools/domu/init waits for it. */
static const char *watch_control(void)
{
    const char *err = xenstore_watch(CONTROL_NODE, WATCH_TOKEN);

    if (!err)
        err = xenstore_write("control/feature-suspend", "1");
    return err;
}

const char *xen_lifecycle_start(void)
{
    static char why[96];
    const char *err;

    if (xen_domain.dom0)
        return "dom0 is not saved by a toolstack: lifecycle= needs a domU";
    err = xenstore_init();
    if (!err)
        err = watch_control();
    if (!err)
        return NULL;
    ksnprintf(why, sizeof(why), "cannot watch %s: %s", CONTROL_NODE, err);
    return why;
}

/* Xen ABI (libxl): an empty control/shutdown acknowledges the request;
 * libxl then waits for the domain to shut down with the reason asked. */
const char *xen_lifecycle_request(void)
{
    static char request[16];

    if (!xenstore_watch_fired() || xenstore_take(CONTROL_NODE, request, sizeof(request)) ||
        request[0] == '\0')
        return NULL;
    return request;
}

unsigned xen_domain_id(void)
{
    char id[16];
    unsigned v = 0;

    if (xenstore_read("domid", id, sizeof(id)))
        return ~0u;
    for (const char *p = id; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (unsigned)(*p - '0');
    return v;
}

/* Xen ABI: VCPUOP_register_vcpu_info for a running vCPU is taken from
 * that vCPU only, and the resume registers vCPU 0's from here; the other
 * vCPUs register their own from their parking threads. */
void xen_suspend_check_vcpu(void)
{
    if (cpu_index() != 0)
        panic("xen: suspending on vCPU %u: only vCPU 0 suspends, the others park", cpu_index());
}

/* vCPU 0, events masked, shared_info mapped and xen_domain read again by
 * the backend: vcpu_info, ports, console, xenstore and the watch as at
 * boot. Xen copies the default vcpu_info over ours when it is registered,
 * mask byte included, so events are masked again at once in the
 * backend's own way (irq_disable): the mask byte under PV; under PVH the
 * CPU's IF, already clear, with the byte left as Xen has it. Each other
 * vCPU is sent an IPI while its ports are still masked, as a thread wake
 * may be: its own unmask must deliver it (xen_cpu_resume checks). */
void xen_resume_domain(void)
{
    xen_events_reset();
    xen_vcpu_info_register(0);
    irq_disable();
    xen_time_resume();
    xen_console_init();
    if (lifecycle_mutant() == LIFECYCLE_NO_REBIND) {
        kprintf("xen: no event channel bound again (lifecycle.mutant=no-rebind)\n");
    } else {
        for (unsigned cpu = 0; cpu < smp_cpus_online(); cpu++)
            xen_cpu_ports_init(cpu);
        xen_cpu_ports_unmask(0);
        for (unsigned cpu = 1; cpu < smp_cpus_online(); cpu++)
            xen_send_ipi(cpu);
    }
    if (xenstore_resume() || watch_control())
        kprintf("xen: after the resume, xenstore or its watch is unusable\n");
}

/* The other vCPUs, each on itself from its parking thread (Xen ABI:
 * VCPUOP_register_vcpu_info for a running vCPU only from that vCPU):
 * ports were bound by vCPU 0, which has sent each an IPI since. No upcall
 * of this vCPU's may hold ports taken in the old domain: they would be
 * dispatched against the new domain's handlers. */
void xen_cpu_resume(unsigned cpu)
{
    xen_vcpu_info_register(cpu);
    irq_disable();
    if (xen_events_dispatching())
        panic("xen: vCPU %u resumes inside an upcall, its ports taken in the old domain not yet "
              "dispatched",
              cpu);
    if (lifecycle_mutant() == LIFECYCLE_NO_REBIND)
        return;
    if (!xen_events_drop_spurious())
        panic("xen: vCPU %u has ports unmasked before its own resume unmasked them", cpu);
    xen_cpu_ports_unmask(cpu);
    if (!xen_ipi_announced(cpu))
        panic("xen: vCPU %u unmasked its IPI port, pending since vCPU 0's IPI, and its upcall "
              "was not raised: the IPI is lost",
              cpu);
    kprintf("xen: vCPU %u resumed in thread context; the IPI sent while its port was masked "
            "raised its upcall on unmask\n",
            cpu);
}
