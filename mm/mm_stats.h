/* Counters of page-table work, in the spirit of the statistics Xen's
 * Linux code kept in debugfs for its mmu and spinlock paths. Generic code
 * counts ptes, faults and flushes; a hypervisor backend counts what they
 * cost it. All are totals since boot or the last mm_stats_reset(). */
#ifndef MM_MM_STATS_H
#define MM_MM_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Every counter once, in the order of struct mm_stats and of the
 * mmstats: line; everything about the counters is made from this list.
 * ADDED(field, NAME): counted by mm_stats_add(MM_NAME, n). KEPT(field,
 * SHOWN): kept by mm_stats_multicall() only, and shown on the line as
 * COUNT (field=N, as every ADDED one is) or MEAN (field_mean=N.NN, per
 * multicall). */
/* clang-format off */
#define MM_STATS(ADDED, KEPT) \
    ADDED(ptes, PTES)                         /* leaf entries written by map, unmap, mprotect */ \
    ADDED(hypercalls, HYPERCALLS)             /* made by the mmu ops; a multicall counts once */ \
    KEPT(multicalls, COUNT)                   /* of those, multicalls of two or more entries */ \
    KEPT(mc_entries, MEAN)                    /* entries in those multicalls */ \
    KEPT(mc_entries_max, COUNT)               /* the most in one */ \
    ADDED(traps_emulated, TRAPS_EMULATED)     /* pte writes the hypervisor trapped and emulated */ \
    ADDED(faults, FAULTS)                     /* write faults handed to a memory area's handler */ \
    ADDED(tlb_flushes, TLB_FLUSHES)           /* one-page flushes, plus one per full flush */ \
    ADDED(shootdowns, SHOOTDOWNS)             /* flushes asked of the other CPUs (mm/tlb.c) */ \
    ADDED(shootdown_ipis, SHOOTDOWN_IPIS)     /* IPIs sent for them (native) */ \
    ADDED(flush_hypercalls, FLUSH_HYPERCALLS) /* hypercalls that carried them (Xen) */
/* clang-format on */

#define MM_STATS_FIELD_(field, ...) uint64_t field;
struct mm_stats {
    MM_STATS(MM_STATS_FIELD_, MM_STATS_FIELD_)
};
#undef MM_STATS_FIELD_

#define MM_STATS_ENUM_(field, name) MM_##name,
#define MM_STATS_NONE_(field, shown)
enum mm_stat { MM_STATS(MM_STATS_ENUM_, MM_STATS_NONE_) };
#undef MM_STATS_ENUM_
#undef MM_STATS_NONE_

/* Adds n to one counter. Safe from any context. */
void mm_stats_add(enum mm_stat which, uint64_t n);

/* One multicall of `entries` entries was made (one hypercall). */
void mm_stats_multicall(unsigned entries);

void mm_stats_reset(void);
void mm_stats_read(struct mm_stats *out);

/* The machine-readable line, without a newline: "mmstats:", then each
 * counter of MM_STATS in order, e.g. "mmstats: ptes=N hypercalls=N
 * multicalls=N mc_entries_mean=X.XX ...". Returns what ksnprintf() returns. */
int mm_stats_format(char *buf, size_t size, const struct mm_stats *s);

#endif
