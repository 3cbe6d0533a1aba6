/* The Xen backend's table of contents: what every part of it shares (the
 * start_info page, the shared_info page, each vCPU's vcpu_info and the two
 * frame-number tables) and every function its files share. The ops
 * themselves, xen_<op>, are declared from the registry. */
#ifndef XEN_BACKEND_H
#define XEN_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/percpu.h"
#include "pv/lock_ops.h"
#include "pv/ops.h"
#include "xen/xen_public.h"

PV_DECLARE_BACKEND(xen)

extern start_info_t *xen_start_info;

/* A page of our image whose mapping xen/start.c points at Xen's
 * shared_info frame: a fixed address, so code can refer to vcpu_info
 * fields RIP-relative. */
union xen_shared_info_page {
    struct shared_info info;
    uint8_t bytes[4096];
};
extern union xen_shared_info_page xen_shared_info_page;
#define xen_shared_info (xen_shared_info_page.info)
/* This vCPU's vcpu_info: registered inside its per-CPU area
 * (xen_vcpu_info_register), so a %gs: operand reaches its event mask. */
#define xen_vcpu ((struct vcpu_info *)this_cpu()->platform)
_Static_assert(sizeof(struct vcpu_info) <= PERCPU_PLATFORM_SIZE, "vcpu_info must fit the area");

/* Pseudo-physical frame -> machine frame: the table Xen built for us
 * (start_info->mfn_list). */
static inline uint64_t pfn_to_mfn(uint64_t pfn)
{
    return ((const xen_pfn_t *)xen_start_info->mfn_list)[pfn];
}

/* Machine frame -> pseudo-physical frame: Xen's read-only
 * machine_to_phys table, mapped in every PV guest at MACH2PHYS_VIRT_START. */
static inline uint64_t mfn_to_pfn(uint64_t mfn)
{
    return ((const unsigned long *)MACH2PHYS_VIRT_START)[mfn];
}

/* With VIRT_BASE 0 a pseudo-physical address is its own virtual address. */
static inline uint64_t virt_to_maddr(const void *va)
{
    uint64_t a = (uint64_t)va;

    return (pfn_to_mfn(a >> 12) << 12) | (a & 0xfff);
}

/* The entry path, in C (start.c), called by boot/xen_pv.asm on the boot
 * stack with Xen's start_info and the top of Xen's bootstrap stack. */
__attribute__((noreturn)) void xen_start(start_info_t *si, uint64_t xen_stack_top);

/* Bring-up, in the order xen_install() (xen/install.c) runs it. */
void xen_console_init(void); /* machine.c: dom0 or domU, decided once: console and exit */
void xen_guest_init(void);   /* start.c: start_info's magic checked, shared_info mapped */
void xen_vcpu_info_register(unsigned cpu); /* cpu.c: cpu's vcpu_info moves into its area */
void xen_traps_init(void);                 /* traps.c: the virtual IDT */
/* traps.c: the same virtual IDT in another vCPU's VCPUOP_initialise context. */
void xen_traps_context(struct vcpu_guest_context *c);
void xen_events_init(void); /* events.c: upcall and failsafe callbacks, every port masked */
void xen_install(void);     /* install.c: all of the above, then every ops table */

/* machine.c: prints the role the domain runs in ("xen: running as domU 1"),
 * once traps work: a domU asks xenstore for its domain id. */
void xen_announce_role(void);
const char *xen_role_variant(void); /* machine.c: pv_info.variant */

/* machine.c: a bounded wait for events on one port, for code that polls a
 * shared ring. Works with events masked and from a trap context. The
 * caller checks its ring, then calls xen_wait_event(), which sleeps until
 * the port fires or 10 ms pass, clears the port's pending bit and returns
 * false once the time is up. */
struct xen_wait {
    evtchn_port_t port;
    uint64_t deadline_ns;
    uint64_t polls_left; /* a second bound, should the clock stand still */
};
void xen_wait_start(struct xen_wait *w, evtchn_port_t port, uint64_t timeout_ns);
bool xen_wait_event(struct xen_wait *w);

/* mmu.c: the multicall buffers and CR3's value, before the table is used;
 * and, once xen.mmu= is read, what the chosen mode needs from Xen. */
void xen_mmu_init(void);
/* hypercall_sites.c: every hypercall site rewritten as xen.hypercall= says. */
void xen_hypercall_setup(void);
void xen_mmu_setup(void);
/* mmu.c: cpu starts on this vCPU's top-level table; returns its machine address. */
uint64_t xen_mmu_cpu_init(unsigned cpu);
/* mmu.c: while on, this vCPU's mmu_updates and mmuext_ops are built and
 * queued as usual but never reach Xen (they report success): for
 * measuring the guest's share of a batch. Call with events masked. */
void xen_mmu_withhold(bool on);

/* time.c: this vCPU's own Xen system time, the clock of every absolute
 * timeout Xen takes (SCHEDOP_poll, the one-shot timer). xen_now_ns(), the
 * kernel's clock, never goes back across vCPUs, so it can be ahead. */
uint64_t xen_local_now_ns(void);

/* time.c: cpu's one-shot timer on VIRQ_TIMER instead of Xen's periodic
 * one; returns the port, still masked. */
evtchn_port_t xen_timer_init(unsigned cpu);

/* lock.c: binds cpu's kick port; before cpu takes a lock through xen_lock_ops. */
void xen_spinlock_init(unsigned cpu);
extern const struct pv_lock_ops xen_lock_ops;

/* smp.c: binds cpu's timer, IPI and kick ports, masked; and, on a vCPU
 * once it runs, unmasks its timer and IPI. */
void xen_cpu_ports_init(unsigned cpu);
void xen_cpu_ports_unmask(void);

#endif
