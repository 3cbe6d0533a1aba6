/* Starting the other vCPUs of a PV domain. Every vCPU but 0 starts down:
 * VCPUOP_initialise gives it a register state plus what vCPU 0 set for
 * itself with hypercalls that act on the caller only (trap table,
 * callbacks, GS base, page-table base), and VCPUOP_up runs it. Its
 * vcpu_info and event ports are set up from here first (xen/smp.c), so it
 * enters C with events masked and its timer, IPI and lock kick ports bound. */
#include "kernel/console.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"

/* 5 KiB: static rather than on the stack; one start runs at a time. */
static struct vcpu_guest_context ctxt;

extern char xen_cpu_entry[]; /* xen/pv/smp_entry.asm */
__attribute__((noreturn)) void xen_cpu_start(unsigned cpu);

/* cpu's first register state, on stack_top: at xen_cpu_entry with rdi =
 * cpu (Xen ABI: VCPUOP_initialise loads every register of user_regs, and
 * sets RFLAGS.IF itself), and the rest as vCPU 0 has it. */
static void fill_context(unsigned cpu, uint64_t stack_top)
{
    uint64_t sp = stack_top & ~(uint64_t)15;

    ctxt = (struct vcpu_guest_context){.flags = VGCF_in_kernel};
    ctxt.user_regs.rip = (uint64_t)xen_cpu_entry;
    ctxt.user_regs.rsp = sp;
    ctxt.user_regs.rdi = cpu;
    ctxt.user_regs.cs = FLAT_KERNEL_CS;
    ctxt.user_regs.ss = FLAT_KERNEL_SS;
    /* Xen ABI: the stack a switch from user to kernel mode lands on (the
     * virtual TSS); this kernel never leaves kernel mode, but Xen wants one. */
    ctxt.kernel_ss = FLAT_KERNEL_SS;
    ctxt.kernel_sp = sp;
    xen_traps_context(&ctxt);
    xen_callbacks_context(&ctxt);
    ctxt.ctrlreg[3] = xen_pfn_to_cr3(xen_mmu_cpu_init(cpu) >> 12);
    ctxt.gs_base_kernel = (uint64_t)&percpu_areas[cpu];
}

/* Starting a vCPU.
 * No INIT-SIPI-SIPI: the new vCPU starts where VCPUOP_initialise says,
 * already in long mode, with events masked in the vcpu_info it will own.
 * Its VIRQ_TIMER, IPI and kick ports are bound for it (Xen ABI: .vcpu
 * names the vCPU an event goes to) before VCPUOP_up lets it run. */
const char *xen_start_cpu(unsigned cpu, uint64_t stack_top)
{
    struct vcpu_info *v = (struct vcpu_info *)percpu_areas[cpu].platform;

    xen_vcpu_info_register(cpu);
    __atomic_store_n(&v->evtchn_upcall_mask, 1, __ATOMIC_RELAXED);
    fill_context(cpu, stack_top);
    return xen_vcpu_initialise_and_up(cpu, &ctxt, xen_cpu_ports_init);
}

/* A started vCPU's first C (xen/pv/smp_entry.asm), events still masked. */
void xen_cpu_start(unsigned cpu)
{
    percpu_init(cpu); /* fills its area; the GS base already points there */
    xen_cpu_ports_unmask(cpu);
    smp_cpu_main(cpu);
}
