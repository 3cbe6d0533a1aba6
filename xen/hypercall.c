#include "xen/hypercall.h"

#include "kernel/exit.h"

/* Where the entry stubs (xen/trap_entry.asm, xen/event_entry.asm) jump to
 * return from a trap or an upcall: the stub pushes rax, r11 and rcx onto
 * the frame the stubs leave and issues HYPERVISOR_iret. */
void *const xen_iret_entry = hypercall_page + __HYPERVISOR_iret * 32;

void xen_must(long rc, const char *op)
{
    if (rc < 0)
        panic("xen: hypercall %s failed with error %ld", op, rc);
}
