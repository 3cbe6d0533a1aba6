/* Trap dispatch and the fatal-trap report, shared by native and Xen entry. */
#include "arch/x86/trap_frame.h"

#include <stdbool.h>

#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "mm/kernel_map.h"
#include "pv/cpu.h"
#include "pv/ops.h"

#define BACKTRACE_MAX_FRAMES 16

static trap_handler_fn trap_handlers[256];

static const char *const trap_names[32] = {
    [TRAP_DE] = "#DE divide error",
    [TRAP_DB] = "#DB debug",
    [TRAP_NMI] = "#NMI",
    [TRAP_BP] = "#BP breakpoint",
    [TRAP_OF] = "#OF overflow",
    [TRAP_BR] = "#BR bound range",
    [TRAP_UD] = "#UD invalid opcode",
    [TRAP_NM] = "#NM device not available",
    [TRAP_DF] = "#DF double fault",
    [TRAP_TS] = "#TS invalid TSS",
    [TRAP_NP] = "#NP segment not present",
    [TRAP_SS] = "#SS stack fault",
    [TRAP_GP] = "#GP general protection",
    [TRAP_PF] = "#PF page fault",
    [TRAP_MF] = "#MF x87 error",
    [TRAP_AC] = "#AC alignment check",
    [TRAP_MC] = "#MC machine check",
    [TRAP_XM] = "#XM SIMD error",
    [TRAP_VE] = "#VE virtualization",
    [TRAP_CP] = "#CP control protection",
};

void trap_set_handler(unsigned vector, trap_handler_fn fn)
{
    trap_handlers[vector & 0xff] = fn;
}

static const char *trap_name(uint64_t vector)
{
    if (vector < 32 && trap_names[vector])
        return trap_names[vector];
    return vector < 32 ? "reserved exception" : "interrupt";
}

/* "#PF page fault" -> 3: the mnemonic is the first word. */
static int mnemonic_length(const char *name)
{
    int n = 0;

    while (name[n] != '\0' && name[n] != ' ')
        n++;
    return n;
}

static void dump_registers(const struct trap_frame *f)
{
    kprintf("  rax %016lx  rbx %016lx  rcx %016lx\n", f->rax, f->rbx, f->rcx);
    kprintf("  rdx %016lx  rsi %016lx  rdi %016lx\n", f->rdx, f->rsi, f->rdi);
    kprintf("  rbp %016lx  rsp %016lx  r8  %016lx\n", f->rbp, f->rsp, f->r8);
    kprintf("  r9  %016lx  r10 %016lx  r11 %016lx\n", f->r9, f->r10, f->r11);
    kprintf("  r12 %016lx  r13 %016lx  r14 %016lx\n", f->r12, f->r13, f->r14);
    kprintf("  r15 %016lx  rip %016lx  rflags %08lx\n", f->r15, f->rip, f->rflags);
    kprintf("  cs %04lx  ss %04lx  error %lx\n", f->cs, f->ss, f->error_code);
}

/* A caller's frame is named by the call instruction, one byte before its
 * return address: when a noreturn call ends a function, the return
 * address is already the next function's first byte. */
static void print_frame(int depth, uint64_t addr)
{
    uint64_t offset;
    const char *name = ksym_lookup(depth == 0 ? addr : addr - 1, &offset);

    if (name && depth > 0)
        offset++; /* shown against the return address, as printed */
    if (name)
        kprintf("  #%-2d %016lx %s+0x%lx\n", depth, addr, name, offset);
    else
        kprintf("  #%-2d %016lx\n", depth, addr);
}

/* Follows saved frame pointers (the kernel keeps them); stops at a null,
 * misaligned or unmapped frame, so a corrupt stack cannot fault us again. */
static void dump_backtrace(const struct trap_frame *f)
{
    uint64_t rbp = f->rbp;

    kprintf("backtrace:\n");
    print_frame(0, f->rip);
    for (int depth = 1; depth < BACKTRACE_MAX_FRAMES; depth++) {
        if (rbp == 0 || (rbp & 7) || !kernel_map_is_readable(rbp, 16))
            break;
        const uint64_t *frame = (const uint64_t *)rbp;
        if (frame[1] == 0)
            break;
        print_frame(depth, frame[1]);
        rbp = frame[0];
    }
}

/* The CPU that trapped. Until percpu_init(0) the GS base is not ours,
 * but then only the boot CPU runs. */
static unsigned trap_cpu(void)
{
    return percpu_areas[0].self ? cpu_index() : 0;
}

void trap_fatal(const struct trap_frame *f, const char *why)
{
    static int nesting[MAX_CPUS];
    unsigned cpu = trap_cpu();
    char verdict[64];

    if (nesting[cpu]++) {
        console_write("trap: fault while reporting a fault\n", 36);
        pv_machine_ops.exit(EXIT_FAILURE);
    }
    kprintf("trap: %s, vector %lu, cpu %u, %s\n", trap_name(f->vector), f->vector, cpu, why);
    if (f->vector == TRAP_PF)
        kprintf("  cr2 %016lx (%s, %s, %s)\n", read_cr2(), (f->error_code & 2) ? "write" : "read",
                (f->error_code & 1) ? "protection" : "not present",
                (f->error_code & 16) ? "instruction fetch" : "data");
    /* A #DF is most often a #PF that could not be delivered, typically on
     * an overflowed stack: CR2 still holds the address that faulted. */
    if (f->vector == TRAP_DF)
        kprintf("  cr2 %016lx (the last page fault's address%s)\n", read_cr2(),
                is_guard_page(read_cr2() & ~0xfffULL) ? ": a stack's guard page" : "");
    dump_registers(f);
    dump_backtrace(f);
    ksnprintf(verdict, sizeof(verdict), "trap %.*s", mnemonic_length(trap_name(f->vector)),
              trap_name(f->vector));
    kernel_exit(EXIT_FAILURE, verdict);
}

void trap_dispatch(struct trap_frame *f)
{
    trap_handler_fn fn = trap_handlers[f->vector & 0xff];

    stack_check();
    if (fn)
        fn(f);
    else
        trap_fatal(f, "no handler");
}
