/* TLB shootdowns under PVH by hypercall (xen.shootdown=hypercall): the
 * other way is the native IPI to each vCPU (arch/x86/native/tlb.c). */
#include "mm/mm_stats.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

/* Xen ABI (public/hvm/hvm_op.h): HVMOP_flush_tlbs, argument NULL, flushes
 * every vCPU's TLB, the caller's too, and returns once none can use a
 * stale entry; so which CPUs and which range do not matter. */
void xen_pvh_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end)
{
    (void)cpus, (void)start, (void)end;
    mm_stats_add(MM_FLUSH_HYPERCALLS, 1);
    xen_must(HYPERVISOR_hvm_op(HVMOP_flush_tlbs, NULL), "HVMOP_flush_tlbs");
}
