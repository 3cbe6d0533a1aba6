/* Xen event channels, 2-level ABI: binding ports to handlers, the mask
 * and pending bits in shared_info, and the upcall that demultiplexes them. */
#ifndef XEN_EVENTS_H
#define XEN_EVENTS_H

#include <stdbool.h>
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
 * to the vCPU the port is bound to, in the backend's way. */
void xen_evtchn_unmask(evtchn_port_t port);
void xen_evtchn_clear(evtchn_port_t port);
/* A new port for a device's backend in domain remote to bind to, given
 * to fn on vCPU 0; masked until xen_evtchn_unmask(). Panics on failure. */
evtchn_port_t xen_evtchn_alloc_unbound(domid_t remote, evtchn_handler_fn fn, void *data);

/* Unbinds a port; its handler goes. */
void xen_evtchn_close(evtchn_port_t port);

/* The backends' ways to unmask, for xen_events_init: by EVTCHNOP_unmask
 * alone (PVH: only Xen can raise the callback vector), or on the port's
 * own vCPU by announcing a pending event in its vcpu_info for the next
 * irq_enable (PV), by EVTCHNOP_unmask from another. Events masked. */
void xen_evtchn_unmask_by_xen(evtchn_port_t port);
void xen_evtchn_unmask_locally(evtchn_port_t port);

/* With events masked, on the port's vCPU: whether its event is pending,
 * unmasked and announced to this vCPU's upcall (selector bit and
 * upcall_pending set), so the next irq_enable runs its handler. */
bool xen_evtchn_announced(evtchn_port_t port);

/* Events masked, just after this vCPU registered its vcpu_info: clears
 * the upcall Xen then raises for nothing, if every port of this vCPU's is
 * masked (else false, and nothing changes). */
bool xen_events_drop_spurious(void);

/* How many times the port's handler has run. */
uint64_t xen_evtchn_count(evtchn_port_t port);
/* How many handlers this vCPU's upcalls have run. */
uint64_t xen_events_dispatched(void);
/* Whether this vCPU is in an upcall that holds ports taken but not yet
 * dispatched: never in thread context (the tick, which may switch
 * threads, is dispatched last, after the flag is down). */
bool xen_events_dispatching(void);

/* Every port masked and vCPU 0's; unmask is the backend's way. */
void xen_events_init(void (*unmask)(evtchn_port_t port));

/* After a resume in a new domain: no port bound, every port masked. */
void xen_events_reset(void);

/* The upcall, with events masked: called by the PV upcall entry
 * (xen/pv/event_entry.asm) and by the PVH callback vector's handler. */
void xen_event_upcall(struct trap_frame *f);

#endif
