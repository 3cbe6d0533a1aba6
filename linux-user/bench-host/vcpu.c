/* The Xen forms' vCPU. A PV kernel runs in ring 3 and reaches its
 * vcpu_info's mask byte through its GS base (xen/pv/patch.h, XEN_VCPU_GS);
 * here the GS base points at a per-CPU area of the kernel's own layout
 * (kernel/percpu.h) with a vcpu_info in its platform bytes, so the same
 * %gs: operands land on the same fields. No Xen is behind it: pending
 * stays 0, so no form takes the path that would ask Xen to deliver an
 * event. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux-user/bench-host/bench_host.h"
#include "xen/backend.h"

static struct percpu area;

void vcpu_init(void)
{
    memset(&area, 0, sizeof(area));
    area.self = &area; /* this_cpu(), and so xen_vcpu, read %gs:0 */
    if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)&area) != 0)
        die("cannot set the GS base (arch_prctl ARCH_SET_GS): %s", strerror(errno));
}

void vcpu_set(uint8_t mask, uint8_t pending)
{
    xen_vcpu->evtchn_upcall_mask = mask;
    xen_vcpu->evtchn_upcall_pending = pending;
}

uint8_t vcpu_mask(void)
{
    return xen_vcpu->evtchn_upcall_mask;
}
