/* Xen's page-table ops, in four modes chosen with xen.mmu=:
 *
 *   trap       pte writes are plain stores to the read-only page table;
 *              Xen traps each one and emulates it (its writable page-table
 *              emulation for PV guests): the slow path of 2008.
 *   hypercall  one mmu_update hypercall per pte.
 *   batch      in a lazy MMU section, updates and TLB flushes are queued
 *              in this vCPU's multicall buffer (xen/pv/multicall.c) and issued
 *              at leave_lazy_mmu() or when it fills; outside one, at once.
 *   swap       batch, but an mprotect of a whole L1's worth of pages builds
 *              a new L1 and swaps it in with one mmu_update of the L2
 *              entry (mm/table_swap.c), which Xen validates in one pass.
 *
 * Every mmu_update and mmuext_op the kernel makes, in any mode, leaves
 * through one function, issue(): a batch when the buffer is flushed, a
 * single request at once outside a lazy section (all of hypercall mode).
 *
 * Xen ABI (PV memory management): a page table must have no writable
 * mapping; Xen validates every entry it installs and holds machine frames.
 * ptep is where the kernel reads an entry: RAM is mapped at VA == PA, so
 * virt_to_maddr(ptep) is the entry's machine address. */
#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/printf.h"
#include "mm/mm_stats.h"
#include "mm/pgtable.h"
#include "xen/pv/backend.h"
#include "xen/hypercall.h"
#include "xen/pv/multicall.h"

enum xen_mmu_mode { XEN_MMU_TRAP, XEN_MMU_HYPERCALL, XEN_MMU_BATCH, XEN_MMU_SWAP };

static const char *const mode_names[] = {"trap", "hypercall", "batch", "swap", 0};
static int mmu_mode = XEN_MMU_BATCH;
OPTION_ENUM_WHERE(PV_CAP_XEN_PV, mmu_mode, "xen.mmu", mode_names, "how pte updates reach Xen");
static bool preserve_ad_wanted = true;
OPTION_BOOL_WHERE(PV_CAP_XEN_PV, preserve_ad_wanted, "xen.preserve_ad",
                  "commit ptes with MMU_PT_UPDATE_PRESERVE_AD when Xen offers it");
static bool pin_tables;
OPTION_BOOL_WHERE(PV_CAP_XEN_PV, pin_tables, "xen.pin",
                  "pin each new page table (MMUEXT_PIN_L*_TABLE) as it is made");

/* Set by xen_mmu_setup(): commits keep A/D through Xen, so start
 * need not clear the entry. Never in trap mode, which has no hypercall. */
static bool preserve_ad;

/* What each vCPU keeps, touched only by that vCPU: a batch-mode lazy
 * section masks events (xen_enter_lazy_mmu), so its thread cannot move to
 * another vCPU halfway and two vCPUs in lazy sections at once each queue
 * in their own buffer. */
struct mmu_cpu {
    bool lazy;                /* between enter_lazy_mmu() and leave_lazy_mmu() */
    unsigned long lazy_flags; /* the event mask to restore at leave_lazy_mmu() */
    uint64_t cr3;             /* what read_cr3 returns: reading CR3 would trap */
    struct mc_batch mc;       /* queued while lazy */
    /* Xen ABI: a *_MULTI op names its vCPUs by the address of a bitmap,
     * read when the op runs, so the queued op points here. */
    xen_ulong_t shootdown_mask;
    bool shootdown_queued; /* the queue holds an op that uses it */
    bool withheld;         /* xen_mmu_withhold(): nothing reaches Xen */
};
static struct mmu_cpu mmu_cpus[MAX_CPUS];
static uint64_t cr3_pa[MAX_CPUS]; /* each CR3 as a pseudo-physical address, across a suspend */
static uint64_t read_cr3_trapped(void);

/* Swap mode queues every update it does not swap as batch mode does. */
static bool batching(void)
{
    return mmu_mode == XEN_MMU_BATCH || mmu_mode == XEN_MMU_SWAP;
}

static struct mmu_cpu *this_mmu(void)
{
    return &mmu_cpus[cpu_index()];
}

static __attribute__((noreturn)) void report_failure(const struct mc_failure *f)
{
    if (f->op == __HYPERVISOR_mmu_update)
        panic("xen: mmu_update failed with error %ld for the pte at 0x%lx (machine address "
              "0x%lx), new value 0x%lx",
              f->error, f->pte_va, f->update.ptr & ~(uint64_t)3, f->update.val);
    if (f->op == __HYPERVISOR_mmuext_op)
        panic("xen: mmuext_op %u failed with error %ld (argument 0x%lx)", f->ext.cmd, f->error,
              f->ext.arg1.linear_addr);
    panic("xen: multicall failed with error %ld", f->error);
}

/* One entry alone goes as the plain hypercall: same work for Xen, without
 * the multicall's own. */
static long issue_one(const struct multicall_entry *e)
{
    void *args = (void *)(uintptr_t)e->args[0];
    unsigned count = (unsigned)e->args[1], *done = (unsigned *)(uintptr_t)e->args[2];

    if (e->op == __HYPERVISOR_mmu_update)
        return HYPERVISOR_mmu_update(args, count, done, DOMID_SELF);
    return HYPERVISOR_mmuext_op(args, count, done, DOMID_SELF);
}

/* Events stay masked meanwhile (the caller's job), so the flag stays
 * this vCPU's: other vCPUs' updates still reach Xen. */
void xen_mmu_withhold(bool on)
{
    this_mmu()->withheld = on;
}

/* A batch built and then not issued: each call reports success with
 * everything done, as Xen would, so the guest's path runs as far as the
 * hypercall instruction and no further. */
static long withhold(struct multicall_entry *entries, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned *done = (unsigned *)(uintptr_t)entries[i].args[2];
        *done = (unsigned)entries[i].args[1];
        entries[i].result = 0;
    }
    return 0;
}

static long issue(struct multicall_entry *entries, unsigned n, void *ctx)
{
    struct mmu_cpu *m = this_mmu();

    (void)ctx;
    if (m->withheld)
        return withhold(entries, n);
    if (m->shootdown_queued) {
        m->shootdown_queued = false;
        mm_stats_add(MM_FLUSH_HYPERCALLS, 1);
    }
    if (n == 1) {
        mm_stats_add(MM_HYPERCALLS, 1);
        entries[0].result = (xen_ulong_t)issue_one(&entries[0]);
        return 0;
    }
    mm_stats_multicall(n);
    return HYPERVISOR_multicall(entries, n);
}

static void flush_queue(void)
{
    struct mc_failure f;

    if (!mc_flush(&this_mmu()->mc, &f))
        report_failure(&f);
}

/* Outside a lazy section a request goes at once, through the same issue()
 * a flush uses, as a call of its own: Xen ABI, the arguments of
 * mmu_update and mmuext_op are (requests, count, &done, domain). */
static void issue_now(unsigned long op, void *request, struct mc_failure *f)
{
    unsigned done = 0;
    struct multicall_entry e = {
        .op = op,
        .args = {(xen_ulong_t)(uintptr_t)request, 1, (xen_ulong_t)(uintptr_t)&done, DOMID_SELF}};

    issue(&e, 1, 0);
    f->op = op;
    f->error = (long)e.result;
    if (f->error != 0)
        report_failure(f);
}

/* Updates the entry at ptep (cmd: its MMU_* command): queued, or at once.
 * Only the immediate path builds a failure report in advance: the queue
 * fills one in itself, and it runs once per pte. */
static void update_entry(uint64_t *ptep, uint64_t val, unsigned cmd, bool queue)
{
    uint64_t ptr = virt_to_maddr(ptep) | cmd;
    struct mc_failure f;

    if (queue) {
        if (!mc_queue_mmu_update(&this_mmu()->mc, ptr, val, (uint64_t)ptep, &f))
            report_failure(&f);
        return;
    }
    f = (struct mc_failure){.update = {.ptr = ptr, .val = val}, .pte_va = (uint64_t)ptep};
    issue_now(__HYPERVISOR_mmu_update, &f.update, &f);
}

static void mmuext(const struct mmuext_op *op)
{
    struct mc_failure f;

    if (this_mmu()->lazy) {
        if (!mc_queue_mmuext_op(&this_mmu()->mc, op, &f))
            report_failure(&f);
        return;
    }
    f = (struct mc_failure){.ext = *op};
    issue_now(__HYPERVISOR_mmuext_op, &f.ext, &f);
}

/* A plain store to a read-only L1 table: Xen's page-fault handler sees
 * the write, validates the new entry and performs it
 * (VMASST_TYPE_writable_pagetables, turned on by xen_mmu_setup). */
static void store_trapped(uint64_t *ptep, uint64_t val)
{
    mm_stats_add(MM_TRAPS_EMULATED, 1);
    __atomic_store_n(ptep, val, __ATOMIC_RELAXED);
}

/* Tour 140: Three ways to write a pte under Xen.
 * `trap`: store to the read-only page table and let Xen's page-fault handler
 * emulate it, the path the series started from; `hypercall`: one
 * mmu_update per pte; `batch`: queue it in the multicall buffer, issued at
 * `leave_lazy_mmu`. The last two share one path, `update_entry`, and every
 * call leaves through `issue`. docs/mm.md
 * has this project's measured cost of each. */
static void write_pte(uint64_t *ptep, uint64_t val, unsigned cmd)
{
    if (mmu_mode == XEN_MMU_TRAP)
        store_trapped(ptep, val);
    else
        update_entry(ptep, val, cmd, this_mmu()->lazy);
}

uint64_t xen_read_cr3(void)
{
    return this_mmu()->cr3;
}

void xen_write_cr3(uint64_t v)
{
    struct mmuext_op op = {.cmd = MMUEXT_NEW_BASEPTR, .arg1.mfn = v >> 12};

    this_mmu()->cr3 = v;
    mmuext(&op); /* Xen ABI: the same base again still flushes the TLB */
}

void xen_flush_tlb_one(uint64_t va)
{
    struct mmuext_op op = {.cmd = MMUEXT_INVLPG_LOCAL, .arg1.linear_addr = va};

    mmuext(&op);
}

/* Tour 145: A shootdown under Xen is one op.
 * Xen knows where each vCPU last ran and flushes those physical CPUs
 * itself, so the other vCPUs are never interrupted: no IPI, no event.
 * As Linux does, one page is an INVLPG_MULTI and more a TLB_FLUSH_MULTI:
 * Xen has no ranged form, and each op is a round of flushes inside Xen.
 * The op joins this vCPU's queue, in a lazy section with the pte updates
 * it follows; outside one the queue is issued at once, alone. */
void xen_flush_tlb_others(unsigned cpus, uint64_t start, uint64_t end)
{
    unsigned long flags = xen_save_fl();
    struct mmuext_op op = {.cmd = MMUEXT_TLB_FLUSH_MULTI};
    struct mc_failure f;
    struct mmu_cpu *m;

    xen_irq_disable(); /* the queue is this vCPU's */
    m = this_mmu();
    if (m->shootdown_queued && m->shootdown_mask != cpus)
        flush_queue(); /* the queued op reads the mask it was given */
    m->shootdown_mask = cpus;
    if (end - start == PAGE_SIZE)
        op = (struct mmuext_op){.cmd = MMUEXT_INVLPG_MULTI, .arg1.linear_addr = start};
    set_xen_guest_handle(op.arg2.vcpumask, &m->shootdown_mask);
    if (!mc_queue_mmuext_op(&m->mc, &op, &f))
        report_failure(&f);
    m->shootdown_queued = true;
    if (!m->lazy)
        flush_queue();
    xen_restore_fl(flags);
}

void xen_set_pte(uint64_t *ptep, uint64_t val)
{
    write_pte(ptep, val, MMU_NORMAL_PT_UPDATE);
}

/* With MMU_PT_UPDATE_PRESERVE_AD the entry stays live: Xen ORs into the
 * commit whatever A/D bits the CPU sets meanwhile. Without it, clear the
 * entry as native code does, so the CPU can set nothing until the commit;
 * the locked xchg on a read-only table is trapped and emulated by Xen. */
uint64_t xen_ptep_modify_prot_start(uint64_t *ptep)
{
    if (preserve_ad)
        return __atomic_load_n(ptep, __ATOMIC_RELAXED);
    mm_stats_add(MM_TRAPS_EMULATED, 1);
    return __atomic_exchange_n(ptep, 0, __ATOMIC_SEQ_CST);
}

void xen_ptep_modify_prot_commit(uint64_t *ptep, uint64_t val)
{
    write_pte(ptep, val, preserve_ad ? MMU_PT_UPDATE_PRESERVE_AD : MMU_NORMAL_PT_UPDATE);
}

/* In batch mode the queue is this vCPU's until leave_lazy_mmu() issues
 * it, so the section keeps events masked: no tick can move the thread to
 * another vCPU in between (Linux disables preemption for the same reason).
 * A nested enter keeps the outer section's state. */
void xen_enter_lazy_mmu(void)
{
    unsigned long flags = xen_save_fl();
    struct mmu_cpu *m;

    if (!batching())
        return;
    xen_irq_disable();
    m = this_mmu();
    if (m->lazy)
        return;
    m->lazy_flags = flags;
    m->lazy = true;
}

void xen_leave_lazy_mmu(void)
{
    struct mmu_cpu *m = this_mmu();

    if (!m->lazy)
        return;
    m->lazy = false;
    flush_queue();
    xen_restore_fl(m->lazy_flags);
}

/* Our one mapping of frame pa (VA == PA): read-only while it is a page
 * table, writable data once it is not. */
static void map_frame(uint64_t pa, bool writable, const char *what)
{
    uint64_t flags = PTE_P | PTE_A | PTE_NX | (writable ? PTE_W | PTE_D : 0);

    mm_stats_add(MM_HYPERCALLS, 1);
    xen_must(HYPERVISOR_update_va_mapping(pa, virt_to_maddr((void *)pa) | flags, UVMF_INVLPG),
             what);
}

/* A pin or unpin (xen.pin=on) of the table at pa, issued at once. */
static void pin_op(unsigned cmd, uint64_t pa)
{
    struct mmuext_op op = {.cmd = cmd, .arg1.mfn = virt_to_maddr((void *)pa) >> 12};

    mmuext(&op);
    flush_queue();
}

/* Xen ABI: a frame may become a page table only while nothing maps it
 * writable, and its one mapping is ours at VA == PA. Unpinned, linking
 * it into a live table makes Xen validate and type it, and the link keeps
 * it typed. Pinned (xen.pin=on, as Linux does), Xen validates and types
 * it now and keeps it so until unpinned, linked or not: a table whose last
 * link goes away is otherwise unvalidated, its entries' references
 * dropped, and validated again when next linked. Anything queued goes
 * first, to keep every update in program order. */
void xen_make_page_table(uint64_t pa, int level)
{
    static const unsigned pin_cmd[] = {0, MMUEXT_PIN_L1_TABLE, MMUEXT_PIN_L2_TABLE,
                                       MMUEXT_PIN_L3_TABLE, MMUEXT_PIN_L4_TABLE};

    flush_queue();
    map_frame(pa, false, "update_va_mapping page table read-only");
    if (pin_tables && level >= 1 && level <= 4)
        pin_op(pin_cmd[level], pa);
}

/* The inverse of xen_make_page_table, for a table no link holds any more:
 * unpinned, Xen already unvalidated it when its last link went. Xen ABI:
 * retyping the frame as writable makes Xen flush any TLB that may still
 * walk it, so the frame can be reused at once. */
void xen_release_page_table(uint64_t pa, int level)
{
    flush_queue();
    if (pin_tables && level >= 1 && level <= 4)
        pin_op(MMUEXT_UNPIN_TABLE, pa);
    map_frame(pa, true, "update_va_mapping released page table writable");
}

bool xen_swaps_whole_tables(void)
{
    return mmu_mode == XEN_MMU_SWAP;
}

/* Always a hypercall, in every mode: Xen emulates stores to L1 tables
 * only. Anything queued goes first, in program order. */
void xen_set_table_entry(uint64_t *entryp, uint64_t val)
{
    flush_queue();
    update_entry(entryp, val, MMU_NORMAL_PT_UPDATE, false);
}

/* Xen ABI: a PV guest's entries hold machine frames, not its own. */
uint64_t xen_phys_to_maddr(uint64_t pa)
{
    return virt_to_maddr((const void *)pa); /* VIRT_BASE 0: the same address */
}

/* Through Xen's machine-to-phys table: every frame a table can hold is ours. */
uint64_t xen_maddr_to_phys(uint64_t maddr)
{
    return (mfn_to_pfn(maddr >> 12) << 12) | (maddr & 0xfff);
}

/* Reading CR3 traps to Xen, which emulates it with the machine address of
 * the current top-level table: read once, here, to seed read_cr3's copy. */
static uint64_t read_cr3_trapped(void)
{
    uint64_t v;

    __asm__ volatile("mov %%cr3, %0" : "=r"(v));
    return v;
}

void xen_mmu_init(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        mc_batch_init(&mmu_cpus[cpu].mc, issue, 0);
    this_mmu()->cr3 = read_cr3_trapped();
}

/* Another vCPU starts on this vCPU's top-level table (its VCPUOP_initialise
 * context's ctrlreg[3]): returns that table's machine address, now cpu's
 * CR3 too. */
uint64_t xen_mmu_cpu_init(unsigned cpu)
{
    mmu_cpus[cpu].cr3 = this_mmu()->cr3;
    return mmu_cpus[cpu].cr3;
}

/* A suspend finds no batch open: the caller holds vm_lock, inside which
 * every lazy section runs, and has the other vCPUs parked. */
void xen_mmu_suspend(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        struct mmu_cpu *c = &mmu_cpus[cpu];
        if (c->lazy || c->mc.nentries)
            panic("xen: suspend with CPU %u's lazy MMU section or batch open", cpu);
        cr3_pa[cpu] = c->cr3 ? xen_maddr_to_phys(c->cr3) : 0;
    }
}

/* Every frame changed: the toolstack rewrote the page tables and the
 * p2m, not the copies of CR3 read_cr3 returns. */
void xen_mmu_resume(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cr3_pa[cpu])
            mmu_cpus[cpu].cr3 = xen_phys_to_maddr(cr3_pa[cpu]);
}

/* Xen ABI: a PV guest's read of CR3 traps and returns the machine address
 * of the table Xen runs it on; after a resume this vCPU's copy must be it.
 * A stale copy could go unnoticed for a while: the old frame's
 * machine_to_phys entry may still name the same pseudo-physical page. */
void xen_mmu_check_cr3(void)
{
    uint64_t real = read_cr3_trapped();

    if (this_mmu()->cr3 != real)
        panic("xen: read_cr3's copy 0x%lx is not the table Xen runs, 0x%lx: a machine frame of "
              "the old domain",
              this_mmu()->cr3, real);
}

static bool xen_offers(unsigned feature)
{
    struct xen_feature_info fi = {.submap_idx = feature / 32};

    xen_must(HYPERVISOR_xen_version(XENVER_get_features, &fi), "xen_version get_features");
    return fi.submap & (1u << (feature % 32));
}

static const char *mode_description(char *buf, size_t size)
{
    if (mmu_mode == XEN_MMU_TRAP)
        return "plain stores, each trapped and emulated by Xen";
    if (mmu_mode == XEN_MMU_HYPERCALL)
        return "one mmu_update hypercall per pte";
    ksnprintf(buf, size,
              "%squeued in lazy MMU sections, multicalls of up to %d entries and %d ptes",
              mmu_mode == XEN_MMU_SWAP ? "whole L1 tables swapped for a new copy, the rest " : "",
              MC_ENTRIES, MC_MMU_UPDATES);
    return buf;
}

static const char *ad_policy(bool offered)
{
    if (preserve_ad)
        return "commit with MMU_PT_UPDATE_PRESERVE_AD";
    if (mmu_mode == XEN_MMU_TRAP)
        return "start clears the pte";
    return offered ? "start clears the pte (xen.preserve_ad=off)"
                   : "start clears the pte (Xen lacks MMU_PT_UPDATE_PRESERVE_AD)";
}

void xen_mmu_setup(void)
{
    bool offered = xen_offers(XENFEAT_mmu_pt_update_preserve_ad);
    char description[160];

    preserve_ad = mmu_mode != XEN_MMU_TRAP && preserve_ad_wanted && offered;
    /* Xen ABI: without this assist a store to a page table is a #PF
     * bounced to us, not an emulated update. Only trap mode wants it. */
    if (mmu_mode == XEN_MMU_TRAP)
        xen_must(HYPERVISOR_vm_assist(VMASST_CMD_enable, VMASST_TYPE_writable_pagetables),
                 "vm_assist writable_pagetables");
    kprintf("xen: pte updates by %s: %s; A/D bits: %s\n", mode_names[mmu_mode],
            mode_description(description, sizeof(description)), ad_policy(offered));
    kprintf("xen: new page tables %s\n",
            pin_tables ? "pinned as they are made (MMUEXT_PIN_L*_TABLE)"
                       : "typed by the link that installs them, not pinned (xen.pin=off)");
}
