/* The live-patching stress test (pv.repatch_test=N): the boot thread
 * rewrites every restore_fl site N times, cycling through the forms the
 * platform has (its own, the indirect call, and another template if it
 * has one), and retargets a static call after each, while a thread per
 * CPU runs both without a pause and checks what they did. A torn
 * instruction traps (#UD, #GP, #PF) or gets the interrupt flag or the
 * static call's result wrong; either ends the run FAIL. With a second
 * CPU, a thread pinned there walks the page tables for W^X throughout, so
 * a page writable and executable for the length of a write ends it too.
 * The control, pv.repatch_unsafe=on, writes without the int3 and must
 * fail. */
#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/live_patch.h"
#include "kernel/main.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/static_call.h"
#include "mm/kernel_map.h"
#include "pv/irq.h"
#include "pv/patch.h"

static uint64_t rewrites;
OPTION_UINT(rewrites, "pv.repatch_test", 0, 1000000,
            "rewrite restore_fl's sites and a static call N times while every CPU runs them");
static bool unsafe;
OPTION_BOOL(unsafe, "pv.repatch_unsafe",
            "test only: rewrite without int3 or syncs, so pv.repatch_test must fail");

static int probe_one(void)
{
    return 1;
}

static int probe_two(void)
{
    return 2;
}

DEFINE_STATIC_CALL(repatch_probe, probe_one);
DECLARE_STATIC_CALL(repatch_probe, probe_one);

static bool stop, wx_checking;
static uint64_t runs[MAX_CPUS];

/* Both directions of irq_restore(), each entered with interrupts off as
 * every caller enters it (kernel/live_patch.c relies on it). */
static void check_restore(void)
{
    unsigned long flags = irq_save();

    irq_restore(flags);
    if (!(irq_save_flags() & X86_EFLAGS_IF))
        panic("pv: repatch test: irq_restore(enabled) left interrupts disabled on cpu %u",
              cpu_index());
    irq_disable();
    irq_restore(irq_save_flags());
    if (irq_save_flags() & X86_EFLAGS_IF)
        panic("pv: repatch test: irq_restore(disabled) enabled interrupts on cpu %u", cpu_index());
    irq_enable();
}

static void runner(void *arg)
{
    uint64_t *count = arg;

    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        int got = static_call(repatch_probe)();

        if (got != 1 && got != 2)
            panic("pv: repatch test: the static call returned %d, not 1 or 2, on cpu %u", got,
                  cpu_index());
        check_restore();
        (*count)++;
        __builtin_ia32_pause(); /* QEMU ends a CPU's turn on pause: the writer gets its turn */
    }
}

/* The W^X check of boot, again and again on a CPU the writer is not on:
 * the writer holds interrupts off while it writes, so only another CPU
 * can see its page tables in the middle of a write. The writer starts
 * once the first walk has, and the walk under way when it stops is
 * finished, so every walk counted overlapped some of the rewrites. */
static void wx_checker(void *arg)
{
    uint64_t *walks = arg;

    __atomic_store_n(&wx_checking, true, __ATOMIC_RELEASE);
    do {
        uint64_t wx = kernel_map_count_wx();

        if (wx != 0)
            panic("pv: repatch test: W^X violated while the text was rewritten: a walk on cpu "
                  "%u found %lu pages writable and executable",
                  cpu_index(), (unsigned long)wx);
        (*walks)++;
    } while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE));
}

/* N rewrites through the forms; returns how many sites changed. */
static unsigned long rewrite_all(const struct pv_backend *const *forms, unsigned nforms)
{
    unsigned long changed = 0;

    for (uint64_t i = 1; i <= rewrites; i++) {
        changed += pv_repatch_op(PV_OP_restore_fl, forms[i % nforms]);
        static_call_update(repatch_probe, (i & 1) ? probe_two : probe_one);
        thread_yield(); /* on one CPU, the runner's turn: it resumes where it was parked */
    }
    changed += pv_repatch_op(PV_OP_restore_fl, forms[0]); /* as booted */
    static_call_update(repatch_probe, probe_one);
    return changed;
}

void pv_repatch_test(void)
{
    const struct pv_backend *forms[3] = {pv_patch_ops.site_backend(), NULL,
                                         pv_patch_ops.alt_site_backend()};
    unsigned nforms = forms[2] ? 3 : 2, cpus = smp_cpus_online();
    unsigned runners = cpus > 1 ? cpus - 1 : 1; /* the CPU left over is the writer's */
    struct thread *threads[MAX_CPUS], *checker = NULL;
    unsigned long changed;
    uint64_t total = 0, walks = 0;

    if (rewrites == 0)
        return;
    live_patch_set_unsafe(unsafe);
    live_patch_trace_next();
    for (unsigned i = 0; i < runners; i++)
        if (!(threads[i] = thread_create("repatch", runner, &runs[i])))
            panic("pv: repatch test: cannot start its threads");
    if (cpus > 1 && !(checker = thread_create_on(1, "wx-check", wx_checker, &walks)))
        panic("pv: repatch test: cannot start its W^X checker");
    while (checker && !__atomic_load_n(&wx_checking, __ATOMIC_ACQUIRE))
        thread_yield();
    changed = rewrite_all(forms, nforms);
    __atomic_store_n(&stop, true, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < runners; i++) {
        thread_join(threads[i]);
        total += runs[i];
    }
    if (checker)
        thread_join(checker);
    if (changed == 0)
        panic("pv: repatch test: no restore_fl site to rewrite");
    if (total == 0)
        panic("pv: repatch test: its threads never ran while it rewrote");
    kprintf("pv: repatch test: %lu rewrites of restore_fl (%lu site writes, %u forms) and %lu "
            "static call retargets while %u threads on %u CPUs ran them %lu times; %lu met an "
            "int3\n",
            (unsigned long)rewrites + 1, changed, nforms, (unsigned long)rewrites + 1, runners,
            cpus, (unsigned long)total, (unsigned long)live_patch_traps());
    if (checker)
        kprintf("pv: repatch test: %lu W^X walks on cpu 1 while it rewrote: 0 pages writable and "
                "executable\n",
                (unsigned long)walks);
}
