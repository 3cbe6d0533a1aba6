/* The one path by which every mmu_update and mmuext_op the kernel makes,
 * in any mode, reaches Xen: issue(). In a lazy MMU section a request joins
 * this vCPU's multicall buffer (xen/pv/multicall.c), issued as a batch
 * when the section ends or the buffer fills; outside one (all of
 * hypercall mode) it goes at once, as a call of its own. */
#include <stdbool.h>

#include "kernel/exit.h"
#include "mm/mm_stats.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"
#include "xen/pv/mmu.h"
#include "xen/pv/mmu_batch.h"
#include "xen/pv/multicall.h"

struct mmu_cpu xen_mmu_cpus[MAX_CPUS];

void xen_mmu_report_failure(const struct mc_failure *f)
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

void xen_mmu_batch_init(void)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        mc_batch_init(&xen_mmu_cpus[cpu].mc, issue, 0);
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
        xen_mmu_report_failure(f);
}

/* Only the immediate path builds a failure report in advance: the queue
 * fills one in itself, and it runs once per pte. */
void xen_mmu_update_entry(uint64_t *ptep, uint64_t val, unsigned cmd, bool queue)
{
    uint64_t ptr = virt_to_maddr(ptep) | cmd;
    struct mc_failure f;

    if (queue) {
        if (!mc_queue_mmu_update(&this_mmu()->mc, ptr, val, (uint64_t)ptep, &f))
            xen_mmu_report_failure(&f);
        return;
    }
    f = (struct mc_failure){.update = {.ptr = ptr, .val = val}, .pte_va = (uint64_t)ptep};
    issue_now(__HYPERVISOR_mmu_update, &f.update, &f);
}

void xen_mmuext(const struct mmuext_op *op)
{
    struct mc_failure f;

    if (this_mmu()->lazy) {
        if (!mc_queue_mmuext_op(&this_mmu()->mc, op, &f))
            xen_mmu_report_failure(&f);
        return;
    }
    f = (struct mc_failure){.ext = *op};
    issue_now(__HYPERVISOR_mmuext_op, &f.ext, &f);
}
