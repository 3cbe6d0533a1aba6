/* Suspending a PVH domain for the toolstack. Nothing of the guest's
 * names a machine frame: the toolstack copies guest frames and the CPU
 * state Xen keeps (registers, the emulated LAPIC), and HAP maps them
 * again in the new domain. What is lost is what Xen gave the domain:
 * shared_info at our page, the callback vector, every event channel. */
#include "kernel/exit.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

/* On vCPU 0, the others parked, interrupts off. */
int xen_pvh_suspend(void)
{
    long rc;

    xen_suspend_check_vcpu();
    xen_time_suspend();
    xen_console_drain();
    rc = HYPERVISOR_suspend(0);
    if (rc < 0)
        panic("xen: SCHEDOP_shutdown(SHUTDOWN_suspend) failed with Xen error %ld", rc);
    if (rc == 1)
        return 1; /* cancelled: the same domain, every port still bound */
    xen_pvh_map_shared_info();
    xen_pvh_read_rings();
    xen_pvh_callback_init();
    xen_resume_domain();
    return 0;
}
