#include "xen/pv/multicall.h"

#include <stddef.h>

void mc_batch_init(struct mc_batch *b, mc_issue_fn issue, void *issue_ctx)
{
    b->nentries = b->nupdates = b->next_ops = 0;
    b->issue = issue;
    b->issue_ctx = issue_ctx;
}

static struct multicall_entry *last_entry(struct mc_batch *b)
{
    return b->nentries ? &b->entries[b->nentries - 1] : NULL;
}

/* A new entry for `op` whose arguments start at slot `first` of array
 * `args`: (args, count, &done, DOMID_SELF), as mmu_update and mmuext_op
 * both take them. */
static void add_entry(struct mc_batch *b, unsigned long op, void *args, unsigned first)
{
    unsigned i = b->nentries++;
    struct multicall_entry *e = &b->entries[i];

    b->first[i] = first;
    b->done[i] = 0;
    *e = (struct multicall_entry){.op = op};
    e->args[0] = (xen_ulong_t)(uintptr_t)args;
    e->args[1] = 0; /* the count, raised by each request queued */
    e->args[2] = (xen_ulong_t)(uintptr_t)&b->done[i];
    e->args[3] = DOMID_SELF;
}

/* Whether a request for `op` extends the last entry: it does when that
 * entry is the same op, as its arguments then end where the request goes. */
static bool extends_last(struct mc_batch *b, unsigned long op)
{
    const struct multicall_entry *e = last_entry(b);

    return e && e->op == op;
}

/* Room for one more request for `op`, whose array has `used` of `size`
 * slots taken: flushes when the array or (for a new entry) the entries
 * are full. */
static bool make_room(struct mc_batch *b, unsigned long op, unsigned used, unsigned size,
                      struct mc_failure *f)
{
    if (used < size && (extends_last(b, op) || b->nentries < MC_ENTRIES))
        return true;
    return mc_flush(b, f);
}

/* Tour 150: Batching: extend the last call, don't add one.
 * A queued mmu_update whose predecessor is also an mmu_update grows that
 * entry's array (its count is args[1]) instead of taking a new multicall
 * entry, as xen_mc_extend_args did in 2008. A whole-heap mprotect thus
 * becomes a few hypercalls of hundreds of updates each, and `mc_flush`
 * checks every result, naming the pte of any update Xen refused. */
bool mc_queue_mmu_update(struct mc_batch *b, uint64_t ptr, uint64_t val, uint64_t pte_va,
                         struct mc_failure *f)
{
    unsigned long op = __HYPERVISOR_mmu_update;

    if (!make_room(b, op, b->nupdates, MC_MMU_UPDATES, f))
        return false;
    if (!extends_last(b, op))
        add_entry(b, op, &b->updates[b->nupdates], b->nupdates);
    b->updates[b->nupdates] = (struct mmu_update){.ptr = ptr, .val = val};
    b->update_va[b->nupdates++] = pte_va;
    last_entry(b)->args[1]++;
    return true;
}

bool mc_queue_mmuext_op(struct mc_batch *b, const struct mmuext_op *op, struct mc_failure *f)
{
    unsigned long call = __HYPERVISOR_mmuext_op;

    if (!make_room(b, call, b->next_ops, MC_MMUEXT_OPS, f))
        return false;
    if (!extends_last(b, call))
        add_entry(b, call, &b->ext[b->next_ops], b->next_ops);
    b->ext[b->next_ops++] = *op;
    last_entry(b)->args[1]++;
    return true;
}

/* Xen ABI: a refused request stops its call; `done` counts the requests
 * before it, so the culprit is the first one not done. */
static void describe_failure(const struct mc_batch *b, unsigned i, struct mc_failure *f)
{
    const struct multicall_entry *e = &b->entries[i];
    unsigned culprit = b->first[i] + b->done[i];

    *f = (struct mc_failure){.op = e->op, .error = (long)e->result};
    if (e->op == __HYPERVISOR_mmu_update && culprit < b->nupdates) {
        f->update = b->updates[culprit];
        f->pte_va = b->update_va[culprit];
    } else if (e->op == __HYPERVISOR_mmuext_op && culprit < b->next_ops) {
        f->ext = b->ext[culprit];
    }
}

bool mc_flush(struct mc_batch *b, struct mc_failure *f)
{
    bool ok = true;
    long rc;

    if (b->nentries == 0)
        return true;
    rc = b->issue(b->entries, b->nentries, b->issue_ctx);
    if (rc != 0) {
        *f = (struct mc_failure){.op = __HYPERVISOR_multicall, .error = rc};
        ok = false;
    }
    for (unsigned i = 0; ok && i < b->nentries; i++) {
        if (b->entries[i].result != 0) {
            describe_failure(b, i, f);
            ok = false;
        }
    }
    b->nentries = b->nupdates = b->next_ops = 0;
    return ok;
}
