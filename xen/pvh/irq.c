/* Events under PVH: the interrupt flag is the CPU's own, so Xen's upcall
 * becomes an interrupt on a vector of ours, taken through the IDT like any
 * other and demultiplexed by the same upcall as under PV (xen/events.c). */
#include "arch/x86/trap_frame.h"
#include "kernel/exit.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

/* Xen ABI (public/hvm/params.h): HVM_PARAM_CALLBACK_IRQ of type VECTOR
 * makes Xen inject the vector into whichever vCPU has evtchn_upcall_pending
 * set, straight into the CPU, not through the LAPIC: no EOI. It needs
 * XENFEAT_hvm_callback_vector. */
void xen_pvh_callback_init(void)
{
    struct xen_hvm_param p = {
        .domid = DOMID_SELF,
        .index = HVM_PARAM_CALLBACK_IRQ,
        .value = ((uint64_t)HVM_PARAM_CALLBACK_TYPE_VECTOR << 56) | XEN_PVH_CALLBACK_VECTOR,
    };

    if (!xen_has_feature(XENFEAT_hvm_callback_vector))
        panic("xen: no XENFEAT_hvm_callback_vector: events cannot reach a PVH guest here");
    trap_set_handler(XEN_PVH_CALLBACK_VECTOR, xen_event_upcall);
    xen_must(HYPERVISOR_hvm_op(HVMOP_set_param, &p), "HVMOP_set_param HVM_PARAM_CALLBACK_IRQ");
}
