/* Xen's interrupt-flag ops: vcpu_info's evtchn_upcall_mask stands in for
 * RFLAGS.IF, and an upcall stands in for an interrupt. Each runs behind a
 * callee-save thunk (PV_THUNKS in xen/install.c), as a call site expects
 * of every op; patched, irq_disable is inline (xen/patch.c). */
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

#define compiler_barrier() __asm__ volatile("" ::: "memory")

/* A byte of this vCPU's vcpu_info, one %gs-relative instruction each: a
 * thread moved to another vCPU between finding its vcpu_info and touching
 * it would touch the old vCPU's mask. */
#define VCPU_GS(field) (offsetof(struct percpu, platform) + offsetof(struct vcpu_info, field))

static void set_upcall_mask(uint8_t masked)
{
    __asm__ volatile("movb %0, %%gs:%c1" ::"qi"(masked), "i"(VCPU_GS(evtchn_upcall_mask))
                     : "memory");
}

static uint8_t upcall_mask(void)
{
    uint8_t v;

    __asm__ volatile("movb %%gs:%c1, %0" : "=q"(v) : "i"(VCPU_GS(evtchn_upcall_mask)));
    return v;
}

static uint8_t upcall_pending(void)
{
    uint8_t v;

    __asm__ volatile("movb %%gs:%c1, %0" : "=q"(v) : "i"(VCPU_GS(evtchn_upcall_pending)));
    return v;
}

void xen_irq_disable(void)
{
    set_upcall_mask(1);
    compiler_barrier();
}

/* Tour 100: Enabling is the hard part.
 * Clearing the mask is not enough. Xen ABI: an event that arrives while
 * the mask is set only sets evtchn_upcall_pending; nothing will deliver it
 * until we look. So `xen_irq_enable` checks the pending byte after
 * unmasking and, if set, makes a hypercall, on whose return Xen delivers
 * the upcall (Xen checks for pending events on every return to the guest).
 * The boot self-test `irq: pending timer delivered on irq_enable` checks
 * this. */
void xen_irq_enable(void)
{
    set_upcall_mask(0);
    compiler_barrier(); /* unmask before the check, or an event could slip between */
    if (upcall_pending())
        xen_force_upcall();
}

unsigned long xen_save_fl(void)
{
    return upcall_mask() ? 0 : X86_EFLAGS_IF;
}

void xen_restore_fl(unsigned long flags)
{
    if (flags & X86_EFLAGS_IF)
        xen_irq_enable();
    else
        xen_irq_disable();
}

/* Xen ABI: SCHEDOP_block clears the event mask itself and does not block
 * if an event is already pending, atomically. So block with the mask set:
 * an event between our last check and the block still wakes us, and its
 * upcall runs as the hypercall returns. */
void xen_safe_halt(void)
{
    set_upcall_mask(1);
    compiler_barrier();
    HYPERVISOR_sched_op(SCHEDOP_block, 0);
}
