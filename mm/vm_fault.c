/* Page faults reach the memory areas here; any other fault still ends in
 * the fatal trap report. */
#include "arch/x86/trap_frame.h"
#include "kernel/console.h"
#include "mm/vm.h"
#include "pv/cpu.h"
#include "mm/vm_internal.h"

/* #PF error code bits (SDM vol. 3, 4.7). */
#define PF_PRESENT (1u << 0) /* a protection violation, not a missing page */
#define PF_WRITE (1u << 1)

static void vm_page_fault(struct trap_frame *f)
{
    uint64_t addr = read_cr2();

    /* A fault with the lock held is a fault in the mm code itself, and
     * the handler could only spin on the lock: report it instead. */
    if (spin_is_locked(&vm_lock))
        trap_fatal(f, "page fault inside the memory-area code");
    if ((f->error_code & (PF_PRESENT | PF_WRITE)) == (PF_PRESENT | PF_WRITE) &&
        vm_write_fault(addr))
        return; /* the handler made the page writable: the write is retried */
    trap_fatal(f, "no memory area handles it");
}

void vm_init(void)
{
    trap_set_handler(TRAP_PF, vm_page_fault);
    kprintf("mm: memory areas in [0x%lx, 0x%lx), write faults go to their handlers\n",
            VM_WINDOW_START, VM_WINDOW_END);
}
