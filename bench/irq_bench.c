/* The interrupt-flag ops: the call sites every spinlock and every
 * interrupt-safe section runs, and so the ones the 2006 binary-patching
 * numbers were about. Each measures whatever the boot installed: an
 * indirect call (pv.patch=off), a patched site, or the bare instructions
 * of a PARAVIRT=n build; restore_fl is push;popf or, with
 * pv.restore_fl=condsti, test;jz;sti.
 *
 * Interrupts are enabled around every benchmark, as the scheduler leaves
 * them: a tick may land inside a repetition, which the minimum leaves out. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "pv/irq.h"

#define IRQ_ITERS 100000

static const char *problem; /* the first thing found wrong since prepare */
static unsigned long enabled_flags;

static void expect(bool ok, const char *what)
{
    if (!ok && !problem)
        problem = what;
}

static bool irqs_enabled(void)
{
    return irq_save_flags() & X86_EFLAGS_IF;
}

/* Every benchmark here starts, and must end, with interrupts enabled. */
static const char *prepare_irq(void)
{
    problem = 0;
    enabled_flags = irq_save_flags();
    expect(enabled_flags & X86_EFLAGS_IF, "interrupts were disabled before the benchmark");
    return problem;
}

static const char *check_irq(void)
{
    expect(irqs_enabled(), "interrupts left disabled");
    irq_disable();
    expect(!irqs_enabled(), "save_fl shows interrupts enabled after irq_disable");
    irq_restore(enabled_flags);
    expect(irqs_enabled(), "save_fl shows interrupts disabled after restore_fl(enabled)");
    return problem;
}

static uint64_t measure_disable_enable(uint64_t n)
{
    return BENCH_TIME_LOOP(n, irq_disable(); irq_enable());
}

BENCH_DEFINE(irq_disable_enable, irq, "`irq_disable(); irq_enable();` (cli; sti natively)",
             .iters = IRQ_ITERS, .subtract_loop = true, .prepare = prepare_irq,
             .measure = measure_disable_enable, .check = check_irq);

/* The and keeps every read live; it is part of what one op costs. */
static uint64_t measure_save_fl(uint64_t n)
{
    unsigned long all = ~0UL;
    uint64_t t = BENCH_TIME_LOOP(n, all &= irq_save_flags());

    expect(all & X86_EFLAGS_IF, "save_fl showed interrupts disabled while they were enabled");
    return t;
}

BENCH_DEFINE(save_fl, irq, "`irq_save_flags()` (pushf; pop)", .iters = IRQ_ITERS,
             .subtract_loop = true, .prepare = prepare_irq, .measure = measure_save_fl,
             .check = check_irq);

/* Restoring "enabled" while enabled: the common end of an irqsave section,
 * and the one case the condsti template is right for. */
static uint64_t measure_restore_fl(uint64_t n)
{
    unsigned long flags = enabled_flags;

    return BENCH_TIME_LOOP(n, irq_restore(flags));
}

BENCH_DEFINE(restore_fl, irq,
             "`irq_restore(enabled)` while enabled: push; popf, or test; jz; sti with "
             "`pv.restore_fl=condsti`",
             .iters = IRQ_ITERS, .subtract_loop = true, .prepare = prepare_irq,
             .measure = measure_restore_fl, .check = check_irq);

static uint64_t measure_irqsave_restore(uint64_t n)
{
    unsigned long saved_all = ~0UL;
    uint64_t t = BENCH_TIME_LOOP(n, {
        unsigned long flags = irq_save();
        saved_all &= flags;
        irq_restore(flags);
    });

    expect(saved_all & X86_EFLAGS_IF, "irq_save returned flags without IF while enabled");
    return t;
}

BENCH_DEFINE(irqsave_irqrestore, irq, "`irq_restore(irq_save())`: three sites", .iters = IRQ_ITERS,
             .subtract_loop = true, .prepare = prepare_irq, .measure = measure_irqsave_restore,
             .check = check_irq);
