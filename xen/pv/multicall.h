/* A multicall buffer: hypercalls queued while the kernel is in lazy MMU
 * mode and issued as one HYPERVISOR_multicall when it leaves, or sooner
 * when the buffer is full.
 *
 * Consecutive mmu_update requests extend the last entry's argument array
 * instead of taking a new entry, and so do consecutive mmuext_ops: a run of
 * 256 pte updates is one entry of count 256, not 256 entries.
 *
 * Pure: it never makes a hypercall itself. The caller passes the function
 * that issues the entries, so the host unit tests drive it with a fake Xen.
 * Not locked: its user (xen/pv/mmu_batch.c) keeps one per vCPU and queues
 * with events masked. */
#ifndef XEN_MULTICALL_H
#define XEN_MULTICALL_H

#include <stdbool.h>
#include <stdint.h>

#include "xen/xen_public.h"

#define MC_ENTRIES 32      /* multicall entries per batch */
#define MC_MMU_UPDATES 256 /* mmu_update requests, over all entries */
#define MC_MMUEXT_OPS 64   /* mmuext_ops, over all entries */

/* Issues entries[0..n): their results land in entries[i].result. Returns
 * the result of the call itself: nonzero means no entry ran. */
typedef long (*mc_issue_fn)(struct multicall_entry *entries, unsigned n, void *ctx);

/* The first update or op Xen refused. */
struct mc_failure {
    unsigned long op; /* __HYPERVISOR_mmu_update, _mmuext_op or _multicall (the call itself) */
    long error;       /* Xen's negated errno */
    struct mmu_update update; /* mmu_update: the request; ptr is the pte's machine address */
    uint64_t pte_va;          /* mmu_update: where the kernel reads that pte */
    struct mmuext_op ext;     /* mmuext_op: the op */
};

struct mc_batch {
    struct multicall_entry entries[MC_ENTRIES];
    unsigned first[MC_ENTRIES]; /* each entry's first slot in its argument array */
    unsigned done[MC_ENTRIES];  /* Xen ABI: each call's count of updates or ops completed */
    struct mmu_update updates[MC_MMU_UPDATES];
    uint64_t update_va[MC_MMU_UPDATES]; /* the pte each update writes, as the kernel reads it */
    struct mmuext_op ext[MC_MMUEXT_OPS];
    unsigned nentries, nupdates, next_ops; /* slots used */
    mc_issue_fn issue;
    void *issue_ctx;
};

void mc_batch_init(struct mc_batch *b, mc_issue_fn issue, void *issue_ctx);

/* Queues `*ptr = val` (ptr: the pte's machine address | MMU_* command);
 * pte_va is only for the report if Xen refuses it. A full buffer is
 * flushed first. False if that flush failed: *f says what failed. */
bool mc_queue_mmu_update(struct mc_batch *b, uint64_t ptr, uint64_t val, uint64_t pte_va,
                         struct mc_failure *f);

/* Queues one mmuext_op, likewise. */
bool mc_queue_mmuext_op(struct mc_batch *b, const struct mmuext_op *op, struct mc_failure *f);

/* Issues everything queued and checks every result. Empty afterwards,
 * whatever happened. False if anything failed: *f is the first failure. */
bool mc_flush(struct mc_batch *b, struct mc_failure *f);

/* Nothing queued. */
static inline bool mc_empty(const struct mc_batch *b)
{
    return b->nentries == 0;
}

#endif
