/* Xen event channels, 2-level ABI: binding ports to handlers, the mask
 * and pending bits in shared_info, and the upcall that demultiplexes them. */
#ifndef XEN_EVENTS_H
#define XEN_EVENTS_H

#include <stdint.h>

#include "xen/xen_public.h"

struct trap_frame;

/* Runs in the upcall, events masked. */
typedef void (*evtchn_handler_fn)(evtchn_port_t port, struct trap_frame *f, void *data);

/* The ports this kernel can give handlers to; Xen hands out low numbers. */
#define EVTCHN_MAX_HANDLED 256

/* Binds virq for vCPU cpu to fn, whose upcall alone runs it. The port
 * stays masked until xen_evtchn_unmask(). Panics on failure. */
evtchn_port_t xen_bind_virq(uint32_t virq, unsigned cpu, evtchn_handler_fn fn, void *data);

/* Binds a new IPI port for vCPU cpu to fn: an event any vCPU can send to
 * cpu. Masked until xen_evtchn_unmask(); panics on failure. */
evtchn_port_t xen_bind_ipi(unsigned cpu, evtchn_handler_fn fn, void *data);

void xen_evtchn_mask(evtchn_port_t port);
/* From any vCPU: delivers an event that came while the port was masked
 * to the vCPU the port is bound to. */
void xen_evtchn_unmask(evtchn_port_t port);
void xen_evtchn_clear(evtchn_port_t port);

/* How many times the port's handler has run. */
uint64_t xen_evtchn_count(evtchn_port_t port);

/* Makes Xen deliver a pending upcall now (it checks on every return from
 * a hypercall). */
void xen_force_upcall(void);
/* The same behind a callee-save thunk: the rare path of a patched
 * irq_enable or restore_fl (xen/irq.c). */
void xen_pv_force_upcall(void);
/* The rest of a patched restore_fl, entered with CF = flags.IF and
 * keeping every register (xen/irq.c); never called from C. */
void xen_pv_restore_fl_cf(void);

/* Called by xen/event_entry.asm with events masked. */
void xen_event_upcall(struct trap_frame *f);

/* The upcall and failsafe callbacks for another vCPU's VCPUOP_initialise
 * context (xen/smp.c): vCPU 0 registers its own in xen_events_init(). */
void xen_events_context(struct vcpu_guest_context *c);
__attribute__((noreturn)) void xen_failsafe(struct trap_frame *f);

#endif
