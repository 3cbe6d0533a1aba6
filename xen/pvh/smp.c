/* Starting another vCPU of a PVH domain, Xen's way: no INIT and startup
 * IPIs, no real-mode trampoline. VCPUOP_initialise takes a
 * vcpu_hvm_context that puts the vCPU straight into long mode on our page
 * tables, in C, on its idle thread's stack; VCPUOP_up runs it. Its Xen
 * side (vcpu_info in its per-CPU area, its ports bound and unmasked) is
 * set up from here first, as Xen allows for a vCPU that is still down.
 * The vCPUs are Xen's list (VCPUOP_is_up): Xen 4.17 builds a PVH dom0's
 * XSDT with a garbage signature when the host has only an RSDT, as
 * QEMU's firmware does, so ACPI cannot be asked. */
#include "arch/x86/cpu.h"
#include "arch/x86/descriptors.h"
#include "kernel/console.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "pv/mmu.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

#define RFLAGS_RESERVED 0x2 /* bit 1 reads as 1; IF, DF and the rest clear */

static vcpu_hvm_context_t ctx; /* one start at a time */

/* A started vCPU's first C, in long mode with this CPU's control
 * registers, interrupts off, on its idle thread's stack; the cached
 * segments are flat, but no GDT, IDT or TSS is loaded yet. */
__attribute__((noreturn)) static void pvh_cpu_main(unsigned cpu)
{
    percpu_init(cpu);
    descriptors_init_secondary(cpu);
    lapic_init();
    native_cpu_apic_id_set(cpu, lapic_id());
    smp_cpu_main(cpu);
}

/* Xen ABI (public/hvm/hvm_vcpu.h): VCPU_HVM_MODE_64B starts the vCPU in
 * long mode with these registers. The stack holds a zero return address,
 * as a call would have left (SysV: rsp + 8 is 16-byte aligned at entry),
 * which also ends the frame chain for backtraces. */
static void fill_context(unsigned cpu, uint64_t stack_top)
{
    uint64_t *sp = (uint64_t *)(stack_top & ~(uint64_t)15) - 1;
    struct vcpu_hvm_x86_64 *r = &ctx.cpu_regs.x86_64;

    *sp = 0;
    ctx = (vcpu_hvm_context_t){.mode = VCPU_HVM_MODE_64B};
    r->rip = (uint64_t)pvh_cpu_main;
    r->rsp = (uint64_t)sp;
    r->rdi = cpu;
    r->rflags = RFLAGS_RESERVED;
    r->cr0 = read_cr0();
    r->cr3 = read_cr3();
    r->cr4 = read_cr4();
    r->efer = rdmsr(MSR_EFER);
}

const char *xen_pvh_start_cpu(unsigned cpu, uint64_t stack_top)
{
    xen_vcpu_info_register(cpu);
    xen_cpu_ports_init(cpu);
    xen_cpu_ports_unmask(cpu);
    fill_context(cpu, stack_top);
    return xen_vcpu_initialise_and_up(cpu, &ctx, 0);
}
