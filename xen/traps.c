/* Exceptions under Xen: the virtual IDT is a table handed to
 * HYPERVISOR_set_trap_table, pointing at the stubs of xen/trap_entry.asm,
 * which end in the same trap_dispatch() as native traps; and the way back,
 * and out when a hypercall fails. */
#include "arch/x86/trap_frame.h"
#include "kernel/exit.h"
#include "xen/backend.h"
#include "xen/hypercall.h"

#define XEN_TRAP_VECTORS 32

/* Where the entry stubs (xen/trap_entry.asm, xen/event_entry.asm) jump to
 * return from a trap or an upcall: the stub pushes rax, r11 and rcx onto
 * the frame the stubs leave and issues HYPERVISOR_iret. */
void *const xen_iret_entry = hypercall_page + __HYPERVISOR_iret * 32;

void xen_must(long rc, const char *op)
{
    if (rc < 0)
        panic("xen: hypercall %s failed with error %ld", op, rc);
}

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
