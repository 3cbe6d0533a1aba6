/* Counters of page-table work, in the spirit of the statistics Xen's
 * Linux code kept in debugfs for its mmu and spinlock paths. Generic code
 * counts ptes, faults and flushes; a hypervisor backend counts what they
 * cost it. All are totals since boot or the last mm_stats_reset(). */
#ifndef MM_MM_STATS_H
#define MM_MM_STATS_H

#include <stddef.h>
#include <stdint.h>

struct mm_stats {
    uint64_t ptes;             /* leaf entries written by map, unmap and mprotect */
    uint64_t hypercalls;       /* made by the mmu ops (a multicall counts once) */
    uint64_t multicalls;       /* of those, multicalls of two or more entries */
    uint64_t mc_entries;       /* entries in those multicalls */
    uint64_t mc_entries_max;   /* the most in one */
    uint64_t traps_emulated;   /* pte writes left to the hypervisor to trap and emulate */
    uint64_t faults;           /* write faults handed to a memory area's handler */
    uint64_t tlb_flushes;      /* single-page flushes, plus full flushes counted once each */
    uint64_t shootdowns;       /* flushes asked of the other CPUs (mm/tlb.c) */
    uint64_t shootdown_ipis;   /* IPIs sent for them (native) */
    uint64_t flush_hypercalls; /* hypercalls that carried them (Xen), batched or alone */
};

enum mm_stat {
    MM_PTES,
    MM_HYPERCALLS,
    MM_TRAPS_EMULATED,
    MM_FAULTS,
    MM_TLB_FLUSHES,
    MM_SHOOTDOWNS,
    MM_SHOOTDOWN_IPIS,
    MM_FLUSH_HYPERCALLS,
};

/* Adds n to one counter. Safe from any context. */
void mm_stats_add(enum mm_stat which, uint64_t n);

/* One multicall of `entries` entries was made (one hypercall). */
void mm_stats_multicall(unsigned entries);

void mm_stats_reset(void);
void mm_stats_read(struct mm_stats *out);

/* The machine-readable line, without a newline:
 *   mmstats: ptes=N hypercalls=N multicalls=N mc_entries_mean=X.XX mc_entries_max=N
 *            traps_emulated=N faults=N tlb_flushes=N shootdowns=N
 *            shootdown_ipis=N flush_hypercalls=N                   (one line)
 * Returns what ksnprintf() returns. */
int mm_stats_format(char *buf, size_t size, const struct mm_stats *s);

#endif
