/* The Xen backend's table of contents: what every part of it shares (the
 * start_info page, the shared_info page, vCPU 0's vcpu_info and the two
 * frame-number tables) and every function its files share. The ops
 * themselves, xen_<op>, are declared from the registry. */
#ifndef XEN_BACKEND_H
#define XEN_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
#define xen_vcpu (&xen_shared_info.vcpu_info[0])

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
void xen_traps_init(void);   /* traps.c: the virtual IDT */
void xen_events_init(void);  /* events.c: upcall and failsafe callbacks, every port masked */
void xen_install(void);      /* install.c: all of the above, then every ops table */

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

/* mmu.c: the multicall buffer and CR3's value, before the table is used;
 * and, once xen.mmu= is read, what the chosen mode needs from Xen. */
void xen_mmu_init(void);
void xen_mmu_setup(void);

/* time.c: the one-shot timer on VIRQ_TIMER instead of Xen's periodic one. */
void xen_timer_init(void);

/* lock.c: binds the kick port; call with events up, before xen_lock_ops is used. */
void xen_spinlock_init(void);
extern const struct pv_lock_ops xen_lock_ops;

#endif
