/* Page faults reach the memory areas here; any other fault still ends in
 * the fatal trap report. */
#include <stdbool.h>

#include "arch/x86/trap_frame.h"
#include "kernel/console.h"
#include "mm/vm.h"
#include "pv/cpu.h"
#include "pv/irq.h"
#include "mm/vm_internal.h"

/* #PF error code bits (SDM vol. 3, 4.7). */
#define PF_PRESENT (1u << 0) /* a protection violation, not a missing page */
#define PF_WRITE (1u << 1)

static void vm_page_fault(struct trap_frame *f)
{
    uint64_t addr = read_cr2();
    bool handled;

    /* A fault with the lock held is a fault in the mm code itself, and
     * the handler could only spin on the lock: report it instead. */
    if (vm_lock_held_by_me())
        trap_fatal(f, "page fault inside the memory-area code");
    if ((f->error_code & (PF_PRESENT | PF_WRITE)) != (PF_PRESENT | PF_WRITE))
        trap_fatal(f, "no memory area handles it");
    /* The entry turned interrupts off; the handler takes vm_lock, so it
     * must take TLB-shootdown IPIs meanwhile: back on, if they were. */
    if (f->rflags & X86_EFLAGS_IF)
        irq_enable();
    handled = vm_write_fault(addr);
    irq_disable();
    if (!handled)
        trap_fatal(f, "no memory area handles it");
    /* the handler made the page writable: the write is retried */
}

void vm_init(void)
{
    trap_set_handler(TRAP_PF, vm_page_fault);
    kprintf("mm: memory areas in [0x%lx, 0x%lx), write faults go to their handlers\n",
            VM_WINDOW_START, VM_WINDOW_END);
}
