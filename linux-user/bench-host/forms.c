/* The forms bench-host times, each beside the kernel benchmark that
 * counts the same form's instructions under icount. Ring 3 rules out what
 * traps there: cli, sti, and so the native irq_disable and irq_enable and
 * the conditional sti's taken path. */
#include <string.h>

#include "arch/x86/native/backend.h"
#include "kernel/spinlock.h"
#include "linux-user/bench-host/bench_host.h"
#include "pv/lock_ops.h"
#include "xen/backend.h"

#define XEN_PATCHED "xen-pv-patched+xen.mmu=batch"

/* The pv spinlock's chain: spin_lock() takes Xen's queued lock with an
 * inline cmpxchg, spin_unlock() calls its unlock through the lock ops,
 * a locked cmpxchg of the locked byte. */
static void lock_through_xen_ops(void)
{
    pv_lock_ops = xen_lock_ops;
    spin_lock_setup();
}

/* The native lock ops have no entries: spin_lock() and spin_unlock() run
 * the ticket lock inline, as with pv.spinlock=off. */
static void lock_inline(void)
{
    pv_lock_ops = native_lock_ops;
    spin_lock_setup();
}

#define SITE(op_, way_)                                                                            \
    {                                                                                              \
        PV_OP_##op_, WAY_##way_                                                                    \
    }
/* The form's sites, and how many. */
#define SITES(...)                                                                                 \
    .sites = {__VA_ARGS__},                                                                        \
    .n_sites = sizeof((struct site_spec[]){__VA_ARGS__}) / sizeof(struct site_spec)
#define KERNEL(bench_, config_) .kernel_bench = bench_, .kernel_config = config_
/* A registered benchmark, its description its what. */
#define BENCH(form_, bench_) .name = form_, .bench = bench_, KERNEL(bench_, "native-patched")

const struct form forms[] = {
    /* One op three ways: through its table, a direct call, inline. */
    {.name = "save_fl/unpatched",
     .what = "`call *pv_irq_ops.save_fl(%rip)`: the native thunk, then `pushf; pop`",
     KERNEL("save_fl", "native-unpatched"),
     SITES(SITE(save_fl, LINKED))},
    {.name = "save_fl/native",
     .what = "`pushf; pop %rax`, after a NOP",
     KERNEL("save_fl", "native-patched"),
     SITES(SITE(save_fl, NATIVE))},
    {.name = "restore_fl/unpatched",
     .what = "`call *pv_irq_ops.restore_fl(%rip)`: the native thunk, then `push; popf`",
     KERNEL("restore_fl", "native-unpatched"),
     SITES(SITE(restore_fl, LINKED)),
     .arg_if_clear = true},
    {.name = "restore_fl/direct-call",
     .what = "`call native_pv_restore_fl`: what Xen's backend writes where it has no template",
     SITES(SITE(restore_fl, XEN_DIRECT)),
     .arg_if_clear = true},
    /* popf against the conditional branch, both given IF clear: the one
     * flags word the branch form takes in ring 3 (its sti would trap), and
     * one popf cannot act on there (IOPL 0: IF is left as it is). */
    {.name = "restore_fl/native",
     .what = "`push %rdi; popf`, after a NOP",
     KERNEL("restore_fl", "native-patched"),
     SITES(SITE(restore_fl, NATIVE)),
     .arg_if_clear = true},
    {.name = "restore_fl/native-condsti",
     .what = "`test $0x200, %edi; jz`: IF clear, so the `sti` is jumped over",
     KERNEL("restore_fl", "native-patched+restore_fl=condsti"),
     SITES(SITE(restore_fl, NATIVE_CONDSTI)),
     .arg_if_clear = true},
    /* The Xen backend's inline forms, on the vCPU's mask byte. */
    {.name = "irq_disable_enable/xen",
     .what = "`movb $1, %gs:mask`; `movb $0, %gs:mask; cmpb $0, %gs:pending; jz` (not the call)",
     KERNEL("irq_disable_enable", XEN_PATCHED),
     SITES(SITE(irq_disable, XEN), SITE(irq_enable, XEN))},
    {.name = "save_fl/xen",
     .what = "`cmpb $1, %gs:mask; sbb %eax, %eax`",
     KERNEL("save_fl", XEN_PATCHED),
     SITES(SITE(save_fl, XEN))},
    {.name = "restore_fl/xen",
     .what = "`bt $9, %edi; call xen_pv_restore_fl_cf`: `setnc %gs:mask; jnc; cmpb; jne; ret`",
     KERNEL("restore_fl", XEN_PATCHED),
     SITES(SITE(restore_fl, XEN))},
    /* The 2018 comparison: the kernel's own call benchmarks. */
    {BENCH("call/direct", "call_direct")},
    {BENCH("call/indirect", "call_indirect")},
    {BENCH("call/retpoline", "call_retpoline")},
    {BENCH("call/static", "call_static")},
    /* The 2008 comparison: the kernel's lock benchmark, two ways. */
    {.name = "spin_lock_unlock/pv-chain",
     .what = "`spin_lock(); spin_unlock()` with `xen_lock_ops`: call, `lock cmpxchg`, ret; "
             "call, call through the ops, `lock cmpxchg`, ret, ret",
     KERNEL("spin_lock_unlock", XEN_PATCHED),
     .bench = "spin_lock_unlock",
     .setup = lock_through_xen_ops},
    {.name = "spin_lock_unlock/inline",
     .what = "`spin_lock(); spin_unlock()`, the ticket lock inline in each",
     KERNEL("spin_lock_unlock", XEN_PATCHED "+spinlock=off"),
     .bench = "spin_lock_unlock",
     .setup = lock_inline},
};
const size_t n_forms = sizeof(forms) / sizeof(forms[0]);

const struct form *form_by_name(const char *name)
{
    for (size_t i = 0; i < n_forms; i++)
        if (strcmp(forms[i].name, name) == 0)
            return &forms[i];
    return NULL;
}

/* The caller's own flags, which keep DF, TF and AC as the ABI wants them
 * across a popf; in ring 3 IF is always set there. */
uint64_t form_arg(const struct form *f)
{
    uint64_t flags = __builtin_ia32_readeflags_u64();

    return f->arg_if_clear ? flags & ~X86_EFLAGS_IF : flags | X86_EFLAGS_IF;
}
