/* The Xen PVH backend's table of contents. A PVH guest is an HVM
 * container entered at the PVH entry: the CPU itself runs cli, sti and
 * popf, its page tables and CR3 writes (hardware-assisted paging), so its
 * irq, mmu and patch ops are the native backend's. Xen still serves what
 * the hardware does not virtualize cheaply: time, events, the console and
 * xenstore, shutdown, pv spinlocks, and, where both ways work, IPIs, TLB
 * shootdowns and the timer, each chosen by an option. install.c composes
 * the tables from native and Xen implementations; nothing here is written
 * twice. */
#ifndef XEN_PVH_BACKEND_H
#define XEN_PVH_BACKEND_H

#include <stdint.h>

#include "arch/x86/lapic.h"
#include "arch/x86/native/backend.h"
#include "xen/backend.h"

/* Where Xen's events arrive: an IDT vector of ours, in the top priority
 * class like the LAPIC's own (arch/x86/lapic.h), and none of theirs. */
#define XEN_PVH_CALLBACK_VECTOR 0xf3
_Static_assert(XEN_PVH_CALLBACK_VECTOR != LAPIC_TIMER_VECTOR &&
                   XEN_PVH_CALLBACK_VECTOR != LAPIC_IPI_VECTOR &&
                   XEN_PVH_CALLBACK_VECTOR != LAPIC_TLB_VECTOR &&
                   XEN_PVH_CALLBACK_VECTOR != LAPIC_SPURIOUS_VECTOR,
               "the callback vector must be a vector of its own");

/* The entry path, in C (start.c), called by arch/x86/pvh.c once CPUID
 * showed Xen's leaves at cpuid_base. */
__attribute__((noreturn)) void xen_pvh_start(uint32_t start_info_pa, uint32_t cpuid_base);

/* install.c: every ops table, composed; and, once the options are read,
 * the choice for each op that has two ways (xen.timer, xen.ipi,
 * xen.shootdown). */
void xen_pvh_install(void);
void xen_pvh_setup(void);

/* irq.c: events become an interrupt on XEN_PVH_CALLBACK_VECTOR. */
void xen_pvh_callback_init(void);

/* start.c, install.c: the console and xenstore rings from the HVM
 * parameters, and Xen's shared_info at our page: at boot and after a
 * resume. suspend.c: the domain's suspend. */
void xen_pvh_read_rings(void);
void xen_pvh_map_shared_info(void);
int xen_pvh_suspend(void);

/* time.c: xen.timer=lapic, the emulated LAPIC timer calibrated against
 * Xen's clock, armed for a deadline in that clock. */
void xen_pvh_lapic_timer_init(void);
void xen_pvh_lapic_timer_oneshot(uint64_t deadline_ns);

/* tlb.c: xen.shootdown=hypercall, every vCPU's TLB flushed by Xen. */
void xen_pvh_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end);

/* smp.c: a vCPU's Xen side (vcpu_info, ports), then the native start. */
const char *xen_pvh_start_cpu(unsigned cpu, uint64_t stack_top);

/* grant_frames.c: the grant table's frames, placed by XENMEM_add_to_physmap. */
const char *xen_pvh_grant_frames(unsigned nr, uint64_t *frames);

#endif
