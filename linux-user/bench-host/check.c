/* Every site of every form, alone, against its backend's own function for
 * the op (native_<op> from arch/x86/native/insns.c, xen_<op> from
 * xen/pv/irq.c), from the same state: both must leave the same result.
 * What a site leaves is what its op is for: save_fl's IF bit in rax; the
 * vCPU's mask byte for Xen's forms; the interrupt flag for native
 * restore_fl, which in ring 3 stays set whatever popf is given (IOPL 0). */
#include <inttypes.h>
#include <stdio.h>

#include "arch/x86/native/backend.h"
#include "linux-user/bench-host/bench_host.h"
#include "pv/patch.h"
#include "xen/pv/backend.h"

static uint64_t observed(struct site_spec s, uint64_t rax)
{
    if (s.op == PV_OP_save_fl)
        return rax & X86_EFLAGS_IF;
    if (s.way == WAY_XEN)
        return vcpu_mask();
    return __builtin_ia32_readeflags_u64() & X86_EFLAGS_IF;
}

/* The op run by the backend's function the site stands for; what it
 * returns. A direct or indirect call reaches the native one too. */
static uint64_t run_reference(struct site_spec s, uint64_t arg)
{
    bool xen = s.way == WAY_XEN;

    switch (s.op) {
    case PV_OP_save_fl:
        return xen ? xen_save_fl() : native_save_fl();
    case PV_OP_restore_fl:
        if (xen)
            xen_restore_fl(arg);
        else
            native_restore_fl(arg);
        return 0;
    case PV_OP_irq_disable:
        if (xen) {
            xen_irq_disable();
            return 0;
        }
        break;
    case PV_OP_irq_enable:
        if (xen) {
            xen_irq_enable();
            return 0;
        }
        break;
    default:
        break;
    }
    die("no reference for %s's %s site in ring 3", pv_op_name(s.op), xen ? "xen" : "native");
}

/* The flags words a site is tried with: IF set and clear, but only
 * clear for the conditional sti, whose sti traps in ring 3. */
static unsigned site_args(const struct form *f, struct site_spec s, uint64_t args[2])
{
    uint64_t flags = form_arg(f) | X86_EFLAGS_IF;

    args[0] = flags & ~X86_EFLAGS_IF;
    args[1] = flags;
    return s.op == PV_OP_restore_fl && s.way == WAY_NATIVE_CONDSTI ? 1 : 2;
}

static bool site_agrees(const struct form *f, unsigned i)
{
    struct site_spec s = f->sites[i];
    uint64_t args[2];
    unsigned n_args = site_args(f, s, args), masks = s.way == WAY_XEN ? 2 : 1;

    for (uint8_t mask = 0; mask < masks; mask++) {
        for (unsigned a = 0; a < n_args; a++) {
            vcpu_set(mask, 0);
            uint64_t got = observed(s, code_run_site(f, i, args[a]));
            vcpu_set(mask, 0);
            uint64_t want = observed(s, run_reference(s, args[a]));
            if (got != want) {
                fflush(stdout);
                fprintf(stderr,
                        "bench-host: %s: site %u (%s) leaves 0x%" PRIx64 " where %s_%s leaves "
                        "0x%" PRIx64 " (mask %u, flags 0x%" PRIx64 ")\n",
                        f->name, i + 1, pv_op_name(s.op), got, s.way == WAY_XEN ? "xen" : "native",
                        pv_op_name(s.op), want, mask, args[a]);
                return false;
            }
        }
    }
    return true;
}

bool check_results(void)
{
    bool ok = true;

    for (size_t f = 0; f < n_forms && ok; f++)
        for (unsigned i = 0; i < forms[f].n_sites && ok; i++)
            ok = site_agrees(&forms[f], i);
    vcpu_set(0, 0);
    return ok;
}
