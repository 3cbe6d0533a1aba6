/* What both Xen backends share: the PV one (xen/pv/) and the PVH one
 * (xen/pvh/) fill their ops tables partly from the files in xen/, whose
 * functions are listed here: the shared_info page, each vCPU's vcpu_info,
 * event channels, Xen's clock and one-shot timer, the console, xenstore,
 * the pv spinlock and IPIs. Each backend's own table of contents is its
 * backend.h. */
#ifndef XEN_BACKEND_H
#define XEN_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/percpu.h"
#include "pv/lock_ops.h"
#include "pv/ops.h"
#include "xen/xen_public.h"

#include <xen/io/console.h>
#include <xen/io/xs_wire.h>

/* A page of our image whose frame the entry path replaces with Xen's
 * shared_info: a fixed address, so code can refer to it RIP-relative. */
union xen_shared_info_page {
    struct shared_info info;
    uint8_t bytes[4096];
};
extern union xen_shared_info_page xen_shared_info_page;
#define xen_shared_info (xen_shared_info_page.info)
/* This vCPU's vcpu_info: registered inside its per-CPU area
 * (xen_vcpu_info_register), so a %gs: operand reaches its fields. */
#define xen_vcpu ((struct vcpu_info *)this_cpu()->platform)
_Static_assert(sizeof(struct vcpu_info) <= PERCPU_PLATFORM_SIZE, "vcpu_info must fit the area");

/* What the entry path learnt about the domain, for the code both backends
 * share: PV reads it from start_info, PVH from its start info and HVM
 * parameters. Filled before xen_console_init(). */
struct xen_domain {
    bool dom0;                               /* SIF_INITDOMAIN */
    struct xencons_interface *console;       /* a domU's console ring, or NULL */
    evtchn_port_t console_port;              /* its event channel */
    struct xenstore_domain_interface *store; /* the xenstore ring, or NULL */
    evtchn_port_t store_port;
    const char *store_problem; /* why there is no store ring, when there is none */
    /* dom0's port I/O (QEMU's isa-debug-exit) needs PHYSDEVOP_set_iopl
     * first: a PV guest's kernel runs in ring 3. */
    bool ports_need_iopl;
    uint32_t features; /* XENFEAT_* bits 0-31 (XENVER_get_features), xen_features_read() */
};
extern struct xen_domain xen_domain;

/* Xen's frame number for a page of ours, as hypercalls that name guest
 * memory take it: the machine frame under PV, the guest frame under PVH
 * (the mmu ops' memory model says which). */
uint64_t xen_frame_of(const void *va);

/* domain.c: Xen's feature bits, read once by each install function before
 * anything asks; then whether Xen offers one (XENFEAT_*). */
void xen_features_read(void);
bool xen_has_feature(unsigned feature);

/* A hypercall the kernel cannot go on without: panics naming the op and
 * Xen's error number (a negated errno from <xen/errno.h>). hypercall.c. */
void xen_must(long rc, const char *op);

/* The ops both backends put in their tables (time.c, machine.c, smp.c). */
uint64_t xen_now_ns(void);
void xen_timer_oneshot(uint64_t deadline_ns);
uint64_t xen_reference_ns(const char **name);
void xen_console_write(const char *s, size_t len);
__attribute__((noreturn)) void xen_exit(int status);
unsigned xen_cpus_possible(void);
void xen_send_ipi(unsigned cpu);
void xen_selftest(void); /* events_test.c */

/* lifecycle.c: the toolstack's requests, and what every resume redoes
 * (machine ops both backends put in their tables; the suspend itself is
 * each backend's). xen_resume_domain runs on vCPU 0 once the backend has
 * mapped shared_info and read xen_domain again. */
const char *xen_lifecycle_start(void);
const char *xen_lifecycle_request(void);
unsigned xen_domain_id(void);
void xen_cpu_resume(unsigned cpu);
void xen_resume_domain(void);
/* First in each backend's suspend: panics unless on vCPU 0. */
void xen_suspend_check_vcpu(void);
/* time.c: the clock across a suspend, never going back. */
void xen_time_suspend(void);
void xen_time_resume(void);
/* machine.c: waits (bounded) until the console daemon has read every line. */
void xen_console_drain(void);

/* machine.c: the console and the way out, for dom0 or a domU as
 * xen_domain says; a panic can be reported from here on. */
void xen_console_init(void);
/* machine.c: prints the role the domain runs in ("xen: running as domU 1"),
 * once traps work: a domU without a domid from its entry asks xenstore. */
void xen_announce_role(unsigned domid);
#define XEN_DOMID_UNKNOWN (~0u)     /* for xen_announce_role: look it up */
const char *xen_role_variant(void); /* pv_info.variant */
/* machine.c: "Xen 4.17.7", from XENVER_version and XENVER_extraversion. */
void xen_version_string(char *buf, size_t len);

/* event_wait.c: a bounded wait for events on one port, for code that polls a
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

/* smp.c: moves cpu's vcpu_info into its per-CPU area; call for cpu before
 * it runs (Xen copies the current contents over). */
void xen_vcpu_info_register(unsigned cpu);
/* smp.c: binds cpu's timer, IPI and kick ports, masked; and unmasks its
 * timer and IPI, by cpu itself once it runs or for it by another vCPU. */
void xen_cpu_ports_init(unsigned cpu);
void xen_cpu_ports_unmask(unsigned cpu);
/* smp.c: VCPUOP_initialise with the backend's context, between(cpu) if
 * given, VCPUOP_up; the start's description, or NULL (the failure said). */
const char *xen_vcpu_initialise_and_up(unsigned cpu, void *context, void (*between)(unsigned));
/* smp.c: on cpu, events masked: whether its IPI port's pending event is
 * announced to its upcall (xen_evtchn_announced). */
bool xen_ipi_announced(unsigned cpu);

#endif
