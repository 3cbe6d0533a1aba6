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
 * to the vCPU the port is bound to. */
void xen_evtchn_unmask(evtchn_port_t port);
void xen_evtchn_clear(evtchn_port_t port);

/* How many times the port's handler has run. */
uint64_t xen_evtchn_count(evtchn_port_t port);

/* Every port masked and vCPU 0's. raise_upcall_locally: unmasking a port
 * whose event is pending may announce it in this vCPU's vcpu_info for the
 * next irq_enable to deliver (PV); else Xen must (PVH). */
void xen_events_init(bool raise_upcall_locally);

/* After a resume in a new domain: no port bound, every port masked. */
void xen_events_reset(void);

/* The upcall, with events masked: called by the PV upcall entry
 * (xen/pv/event_entry.asm) and by the PVH callback vector's handler. */
void xen_event_upcall(struct trap_frame *f);

#endif
