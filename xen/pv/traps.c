/* Exceptions and upcalls under Xen PV: the virtual IDT is a table handed
 * to HYPERVISOR_set_trap_table, pointing at the stubs of
 * xen/pv/trap_entry.asm, which end in the same trap_dispatch() as native
 * traps; events arrive at callbacks registered with CALLBACKOP_register
 * (xen/pv/event_entry.asm); and the way back. */
#include "arch/x86/trap_frame.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"

#define XEN_TRAP_VECTORS 32

/* Where the entry stubs (xen/pv/trap_entry.asm, xen/pv/event_entry.asm) jump to
 * return from a trap or an upcall: the stub pushes rax, r11 and rcx onto
 * the frame the stubs leave and issues HYPERVISOR_iret. */
void *const xen_iret_entry = hypercall_page + __HYPERVISOR_iret * 32;

extern const uint64_t xen_trap_stubs[XEN_TRAP_VECTORS];

/* One more entry than vectors: Xen ABI, the table ends at address 0. */
static struct trap_info trap_table[XEN_TRAP_VECTORS + 1];

void xen_traps_init(void)
{
    for (unsigned v = 0; v < XEN_TRAP_VECTORS; v++) {
        struct trap_info *t = &trap_table[v];
        t->vector = (uint8_t)v;
        t->cs = FLAT_KERNEL_CS;
        t->address = xen_trap_stubs[v];
        /* DPL 0: no `int n` may raise it. IF: mask events on entry, as a
         * native interrupt gate clears RFLAGS.IF. */
        TI_SET_DPL(t, 0);
        TI_SET_IF(t, 1);
    }
    xen_must(HYPERVISOR_set_trap_table(trap_table), "set_trap_table");
}

/* The same table for another vCPU, through its VCPUOP_initialise context:
 * Xen ABI, set_trap_table applies to the calling vCPU only, and trap_ctxt
 * is indexed by vector (address 0: no handler). */
void xen_traps_context(struct vcpu_guest_context *c)
{
    for (unsigned v = 0; v < XEN_TRAP_VECTORS; v++)
        c->trap_ctxt[v] = trap_table[v];
}

extern char xen_event_entry[], xen_failsafe_entry[];
__attribute__((noreturn)) void xen_failsafe(struct trap_frame *f);

void xen_failsafe(struct trap_frame *f)
{
    kprintf("xen: failsafe callback: Xen could not return to rip %lx "
            "(a bad segment selector or iret frame)\n",
            f->rip);
    trap_fatal(f, "Xen failsafe callback");
}

static void register_callback(uint16_t type, uint16_t flags, const void *entry)
{
    struct callback_register cb = {
        .type = type,
        .flags = flags,
        .address = (xen_callback_t)entry,
    };

    xen_must(HYPERVISOR_callback_op(CALLBACKOP_register, &cb), "callback_op register");
}

/* The event callback is the PV upcall: Xen enters it with events masked. */
void xen_callbacks_init(void)
{
    register_callback(CALLBACKTYPE_event, 0, xen_event_entry);
    register_callback(CALLBACKTYPE_failsafe, CALLBACKF_mask_events, xen_failsafe_entry);
}

/* Xen ABI: CALLBACKOP_register sets the callbacks of the calling vCPU
 * only; another vCPU gets them in its VCPUOP_initialise context, with
 * the flag that stands for CALLBACKF_mask_events. */
void xen_callbacks_context(struct vcpu_guest_context *c)
{
    c->event_callback_eip = (uint64_t)xen_event_entry;
    c->failsafe_callback_eip = (uint64_t)xen_failsafe_entry;
    c->flags |= VGCF_failsafe_disables_events;
}
