/* Live patching: rewriting text that other CPUs may be running, with a
 * breakpoint in front of each place while it changes, and rewriting a
 * paravirt op's sites so. */
#include "kernel/live_patch.h"

#include <stdbool.h>

#include "arch/x86/trap_frame.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/kernel_map.h"
#include "pv/ops.h"
#include "pv/patch.h"

extern const struct pv_site __pv_sites_start[], __pv_sites_end[];

#define INT3 0xcc

static struct live_place batch[LIVE_PATCH_MAX_PLACES];
static unsigned batch_len; /* nonzero only while a write is under way */
static bool writing;
static bool unsafe; /* the test's control: no int3, no syncs */
static bool trace;  /* the next write shows its first place after each step */
static uint64_t traps;

/* What the place does, done on the frame of a CPU that met its int3, so
 * that CPU never waits for the writer. The frame's RFLAGS.IF is the
 * interrupted code's: iret restores it natively, and HYPERVISOR_iret sets
 * the event mask from it under Xen (Xen ABI, struct iret_context). */
static void stand_in(const struct live_place *p, struct trap_frame *f)
{
    if (p->op == LIVE_JUMP) {
        f->rip = p->jump_to;
        return;
    }
    /* restore_fl, the one op live_patchable() allows: IF from rdi. */
    f->rflags = (f->rflags & ~X86_EFLAGS_IF) | (f->rdi & X86_EFLAGS_IF);
    f->rip = p->addr + p->len;
}

/* #BP: an int3 of a write under way, or a fatal trap as before. rip is
 * past the int3. Interrupts stay off in here (an interrupt gate, or Xen's
 * event mask), so the write cannot finish and free the batch meanwhile. */
static void on_breakpoint(struct trap_frame *f)
{
    unsigned n = __atomic_load_n(&batch_len, __ATOMIC_ACQUIRE);

    for (unsigned i = 0; i < n; i++) {
        if (batch[i].addr == f->rip - 1) {
            __atomic_add_fetch(&traps, 1, __ATOMIC_RELAXED);
            stand_in(&batch[i], f);
            return;
        }
    }
    trap_fatal(f, "an int3 no live patch wrote");
}

static void poke(uint64_t addr, const void *bytes, size_t len)
{
    pv_patch_ops.text_poke((void *)addr, bytes, len);
}

void live_patch_trace_next(void)
{
    trace = true;
}

/* One line: the place's bytes as they are now, after `step`. */
static void show(const struct live_place *p, const char *step)
{
    const uint8_t *now = (const uint8_t *)p->addr;

    if (!trace)
        return;
    kprintf("pv: live patch 0x%lx %-6s", p->addr, step);
    for (unsigned i = 0; i < p->len; i++)
        kprintf(" %02x", now[i]);
    kprintf("\n");
}

void live_patch_set_unsafe(bool on)
{
    unsafe = on;
}

/* The control: each place's tail, a millisecond, then its first byte,
 * with nothing to stop a CPU running the torn bytes in between. */
static void write_torn(const struct live_place *places, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t until = time_now_ns() + NSEC_PER_MSEC;

        poke(places[i].addr + 1, places[i].bytes + 1, places[i].len - 1u);
        while (time_now_ns() < until)
            __builtin_ia32_pause();
        poke(places[i].addr, places[i].bytes, 1);
    }
}

uint64_t live_patch_traps(void)
{
    return __atomic_load_n(&traps, __ATOMIC_RELAXED);
}

static void check_places(const struct live_place *places, unsigned n)
{
    if (n > LIVE_PATCH_MAX_PLACES)
        panic("pv: live patch of %u places, over the %u one write takes", n, LIVE_PATCH_MAX_PLACES);
    for (unsigned i = 0; i < n; i++) {
        const struct live_place *p = &places[i];
        if (p->len == 0 || p->len > PV_SITE_MAX_LEN || p->addr < (uint64_t)__text_start ||
            p->addr + p->len > (uint64_t)__text_end)
            panic("pv: live patch place 0x%lx+%u is not inside kernel text", p->addr, p->len);
    }
}

/* Tour 95: Patching while other CPUs run.
 * x86 promises nothing about an instruction another CPU fetches while it
 * is being written (Intel SDM vol. 3, 8.1.3), so each place is written in
 * three steps, each followed by smp_sync_cores(): an int3 over its first
 * byte; the rest of the new bytes; the new first byte. A CPU meanwhile
 * runs the old bytes, or the int3, whose handler does what the place does
 * and resumes after it, or the new bytes. Chosen over stopping every CPU
 * in a rendezvous, which a CPU spinning with interrupts off for a lock
 * the writer's CPU holds would never reach. A fourth write puts the first
 * byte there again: under QEMU's TCG a CPU translating the place while
 * step 3 lands can keep a translation holding the int3 (seen: an int3 met
 * where memory held e9), and a write over the byte discards it. */
static void write_with_int3(const struct live_place *places, unsigned n)
{
    static const uint8_t int3 = INT3;

    trap_set_handler(TRAP_BP, on_breakpoint);
    memcpy(batch, places, n * sizeof(*places));
    __atomic_store_n(&batch_len, n, __ATOMIC_RELEASE); /* before any int3 is there */
    show(&places[0], "before");
    for (unsigned i = 0; i < n; i++)
        poke(places[i].addr, &int3, 1);
    smp_sync_cores();
    show(&places[0], "int3");
    for (unsigned i = 0; i < n; i++)
        poke(places[i].addr + 1, places[i].bytes + 1, places[i].len - 1u);
    smp_sync_cores();
    show(&places[0], "tail");
    for (unsigned i = 0; i < n; i++)
        poke(places[i].addr, places[i].bytes, 1);
    smp_sync_cores();
    show(&places[0], "head");
    trace = false;
    for (unsigned i = 0; i < n; i++)
        poke(places[i].addr, places[i].bytes, 1); /* unchanged: see above */
    smp_sync_cores();                             /* and so no CPU is left inside on_breakpoint */
    __atomic_store_n(&batch_len, 0, __ATOMIC_RELEASE);
}

void live_patch_hold(void)
{
    while (__atomic_exchange_n(&writing, true, __ATOMIC_ACQUIRE))
        thread_yield();
}

void live_patch_unhold(void)
{
    __atomic_store_n(&writing, false, __ATOMIC_RELEASE);
}

/* With one CPU nobody can meet a half-written place: one copy each. */
void live_patch_write(const struct live_place *places, unsigned n)
{
    check_places(places, n);
    if (n == 0)
        return;
    live_patch_hold();
    if (unsafe) {
        write_torn(places, n);
    } else if (smp_cpus_online() < 2) {
        for (unsigned i = 0; i < n; i++)
            poke(places[i].addr, places[i].bytes, places[i].len);
    } else {
        write_with_int3(places, n);
    }
    live_patch_unhold();
}

/* Where a thread can stop inside a site is where it resumes, so a site
 * can be rewritten under parked threads only if every form of it has its
 * instructions end where the site ends (pv/patch.c pads first): a thread
 * then stops at the site's start or its end, never inside. Stopping
 * inside needs an interrupt between two of its instructions, so the
 * site's op must be entered with interrupts off and end with the
 * instruction that may turn them on, or with its call. restore_fl is:
 * irq_restore() follows irq_save(). irq_disable and save_fl are entered
 * with interrupts on. */
static bool live_patchable(enum pv_op op)
{
    return op == PV_OP_restore_fl;
}

/* The indirect call through s's slot at the end, padding first: where a
 * thread stops is then the site's start or end, as in every other form.
 * The emitters cannot fail here: the linker wrote this very call at s. */
static void indirect_call_form(const struct pv_site *s, uint8_t *out)
{
    size_t pad = s->len - PV_INDIRECT_CALL_LEN;

    pv_fill_padding(out, pad);
    (void)pv_emit_indirect_call(out + pad, s->addr + pad, pv_op_slot(s->op));
}

/* What be writes at s (pv_patch_site wants the site as linked, call
 * first, to start from), or the indirect call if be is NULL or keeps it. */
static void new_form(const struct pv_site *s, const struct pv_backend *be, uint8_t *out)
{
    struct pv_text one = {out, s->addr, s->len};
    struct pv_patch_stats stats = {0};
    char err[PV_PATCH_SUMMARY_LEN];
    enum pv_patch_result r;

    if (be) {
        (void)pv_emit_linked_site(out, s->addr, s->len, pv_op_slot(s->op));
        r = pv_patch_site(s, be, &one, &stats, err, sizeof(err));
        if (r == PV_REJECTED)
            panic("%s", err);
        if (r == PV_PATCHED_INLINE || r == PV_PATCHED_CALL)
            return;
    }
    indirect_call_form(s, out);
}

/* A site still as linked, call first, was never patched at boot: a thread
 * may have stopped after its call, inside the site. pv_site_valid() accepts
 * exactly such a site; one of 6 bytes has no padding, so it is call first
 * in every layout and safe. */
static bool still_as_linked(const struct pv_site *s)
{
    struct pv_text text = pv_kernel_text();
    char err[PV_PATCH_SUMMARY_LEN];

    return s->len > PV_INDIRECT_CALL_LEN && pv_site_valid(s, &text, err, sizeof(err));
}

unsigned pv_repatch_op(enum pv_op op, const struct pv_backend *be)
{
    struct live_place places[LIVE_PATCH_MAX_PLACES];
    unsigned n = 0;

    if (!live_patchable(op))
        panic("pv: %s cannot be rewritten while threads run: a thread may stop inside its site",
              pv_op_name(op));
    for (const struct pv_site *s = __pv_sites_start; s < __pv_sites_end; s++) {
        const uint8_t *now = (const uint8_t *)s->addr;
        struct live_place *p = &places[n];

        if (s->op != op)
            continue;
        if (still_as_linked(s))
            panic("pv: site at 0x%lx (%s) still has its call first, as assembled: live "
                  "patching needs the sites patched at boot",
                  s->addr, pv_op_name(op));
        if (n == LIVE_PATCH_MAX_PLACES)
            panic("pv: %s has over %u sites to rewrite at once", pv_op_name(op), n);
        *p = (struct live_place){.addr = s->addr, .len = s->len, .op = op};
        new_form(s, be, p->bytes);
        if (memcmp(now, p->bytes, s->len) != 0)
            n++;
    }
    live_patch_write(places, n);
    return n;
}
