/* Xen's interrupt-flag ops: vcpu_info's evtchn_upcall_mask stands in for
 * RFLAGS.IF, and an upcall stands in for an interrupt. Each runs behind a
 * callee-save thunk (PV_THUNKS in xen/pv/install.c), as a call site expects
 * of every op; patched, irq_disable, save_fl and irq_enable are inline
 * (xen/pv/patch.c) and restore_fl calls an entry written by hand. */
#include "kernel/compiler.h"
#include "pv/call.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"
#include "xen/pv/patch.h"

/* These touch a byte of this vCPU's vcpu_info in one %gs-relative
 * instruction each (XEN_VCPU_GS, xen/pv/patch.h): a thread moved to another
 * vCPU between finding its vcpu_info and touching it would touch the old
 * vCPU's mask. */
static void set_upcall_mask(uint8_t masked)
{
    __asm__ volatile("movb %0, %%gs:%c1" ::"qi"(masked), "i"(XEN_VCPU_GS(evtchn_upcall_mask))
                     : "memory");
}

static uint8_t upcall_mask(void)
{
    uint8_t v;

    __asm__ volatile("movb %%gs:%c1, %0" : "=q"(v) : "i"(XEN_VCPU_GS(evtchn_upcall_mask)));
    return v;
}

static uint8_t upcall_pending(void)
{
    uint8_t v;

    __asm__ volatile("movb %%gs:%c1, %0" : "=q"(v) : "i"(XEN_VCPU_GS(evtchn_upcall_pending)));
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
 * No fence between the store and the load: Xen kicks the vCPU whenever
 * pending goes from 0 to 1 and reads the mask on this CPU on its way back
 * in, where our own store is seen. The boot self-tests `irq: pending timer
 * delivered on irq_enable` (and `on irq_restore`) check this, for the C,
 * inline and hand-written forms alike. */
void xen_irq_enable(void)
{
    set_upcall_mask(0);
    compiler_barrier(); /* unmask before the check, or an event could slip between */
    if (upcall_pending())
        xen_force_upcall();
}

void xen_force_upcall(void)
{
    HYPERVISOR_xen_version(XENVER_version, 0);
}

/* The rare path of a patched irq_enable or restore_fl: behind a thunk,
 * since the site expects every register kept. */
PV_THUNK_NONE(xen_pv_force_upcall, xen_force_upcall);

/* What a patched restore_fl calls once its `bt $9, %edi` has set CF to
 * flags.IF (xen/pv/patch.c): xen_restore_fl by hand, touching only flags, so
 * it needs no thunk (as Linux's "direct" Xen irq ops). setnc stores the
 * mask as the opposite of IF and leaves CF alone; with IF set, as in
 * xen_irq_enable, a pending event is delivered through a hypercall. It
 * reads the pending byte alone: one 16-bit load of pending and the mask
 * just stored could not be forwarded from the byte store and waits for it
 * (a store-forwarding stall: make bench-host timed that form at 19-20 TSC
 * ticks, this one, an instruction longer, at 3-6 on the same host). (An
 * asm statement in a function, for its "i" operands; the function is never
 * called.) */
__attribute__((used)) static void xen_restore_fl_cf_body(void)
{
    __asm__(".pushsection .text.xen_pv_restore_fl_cf, \"ax\", @progbits\n\t"
            ".globl xen_pv_restore_fl_cf\n\t"
            ".type xen_pv_restore_fl_cf, @function\n"
            "xen_pv_restore_fl_cf:\n\t"
            "setnc %%gs:%c[mask]\n\t"
            "jnc 1f\n\t" /* IF clear: masked, nothing to deliver */
            "cmpb $0, %%gs:%c[pending]\n\t"
            "jne xen_pv_force_upcall\n" /* a tail call: it returns to the site */
            "1:\tret\n\t"
            ".size xen_pv_restore_fl_cf, . - xen_pv_restore_fl_cf\n\t"
            ".popsection"
            :
            : [mask] "i"(XEN_VCPU_GS(evtchn_upcall_mask)), [pending] "i"(
                                                               XEN_VCPU_GS(evtchn_upcall_pending)));
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
