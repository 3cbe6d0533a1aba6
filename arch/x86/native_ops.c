/* The native interrupt-flag and time ops. The irq ops are the instructions
 * themselves behind callee-save thunks (pv/call.h), so they already keep
 * the convention a patchable call site needs. */
#include "arch/x86/native_ops.h"

#include "arch/x86/cpu.h"
#include "arch/x86/native_mmu.h"
#include "arch/x86/native_patch.h"
#include "arch/x86/native_time.h"
#include "kernel/cmdline.h"
#include "arch/x86/tsc.h"
#include "pv/call.h"
#include "pv/ops.h"

PV_THUNKED void native_irq_disable_fn(void)
{
    __asm__ volatile("cli" : : : "memory");
}

PV_THUNKED void native_irq_enable_fn(void)
{
    __asm__ volatile("sti" : : : "memory");
}

PV_THUNKED unsigned long native_save_fl_fn(void)
{
    unsigned long flags;
    __asm__ volatile("pushf\n\tpop %0" : "=r"(flags) : : "memory");
    return flags;
}

PV_THUNKED void native_restore_fl_fn(unsigned long flags)
{
    __asm__ volatile("push %0\n\tpopf" : : "r"(flags) : "memory", "cc");
}

/* sti's one-instruction shadow covers the hlt: an interrupt pending at
 * the sti is taken only once the hlt has begun, and so ends it. */
PV_THUNKED void native_safe_halt_fn(void)
{
    __asm__ volatile("sti\n\thlt" : : : "memory");
}

void native_pv_irq_disable(void);
void native_pv_irq_enable(void);
unsigned long native_pv_save_fl(void);
void native_pv_restore_fl(unsigned long);
void native_pv_safe_halt(void);

PV_THUNK_VOID(native_pv_irq_disable, native_irq_disable_fn);
PV_THUNK_VOID(native_pv_irq_enable, native_irq_enable_fn);
PV_THUNK_RET(native_pv_save_fl, native_save_fl_fn);
PV_THUNK_VOID(native_pv_restore_fl, native_restore_fl_fn);
PV_THUNK_VOID(native_pv_safe_halt, native_safe_halt_fn);

static const struct pv_irq_ops native_irq_ops = {
    .irq_disable = native_pv_irq_disable,
    .irq_enable = native_pv_irq_enable,
    .save_fl = native_pv_save_fl,
    .restore_fl = native_pv_restore_fl,
    .safe_halt = native_pv_safe_halt,
};

static const struct pv_time_ops native_time_ops = {
    .now_ns = tsc_now_ns,
    .timer_oneshot = native_timer_oneshot,
};

static struct cpuid_result native_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r = cpuid(leaf, subleaf);

    return (struct cpuid_result){r.eax, r.ebx, r.ecx, r.edx};
}

static const struct pv_cpu_ops native_cpu_ops = {
    .cpuid = native_cpuid,
    .read_cr2 = native_read_cr2,
};

/* Tour 6: Installing a backend: one assignment per table.
 * Reading this function tells you everything the native backend changes;
 * `xen_ops_install` in xen/xen_ops.c is its twin. After this, no code asks
 * which platform it runs on. */
void native_ops_install(void)
{
    pv_info = (struct pv_info){.name = "native", .caps = 0};
    /* CPU: the cpuid instruction. */
    pv_cpu_ops = native_cpu_ops;
    /* The interrupt flag: cli, sti, pushf, popf, sti;hlt. */
    pv_irq_ops = native_irq_ops;
    /* Page tables: plain stores, invlpg, mov to and from %cr3. */
    pv_mmu_ops = native_mmu_ops;
    /* Time: the TSC is the clock, the local APIC timer the one-shot; both
     * are calibrated before anything can read them. */
    native_time_init();
    pv_time_ops = native_time_ops;
}

/* The 2016 LKML proposal: a restore that never has to disable can be a
 * conditional sti, avoiding popf's cost. */
static const char *const restore_fl_choices[] = {"popf", "condsti", 0};
static int restore_fl_choice;
OPTION_ENUM(restore_fl_choice, "pv.restore_fl", restore_fl_choices,
            "native restore_fl template: push;popf or test;jz;sti");

const struct pv_backend *native_ops_patch_backend(void)
{
    struct native_patch_ctx ctx = {.restore_fl_condsti = restore_fl_choice == 1};

    return native_patch_backend(&ctx);
}
