#include "mm/mm_stats.h"

#include <stdbool.h>

#include "kernel/printf.h"

static struct mm_stats stats;

static uint64_t *counter(enum mm_stat which)
{
    switch (which) {
    case MM_PTES:
        return &stats.ptes;
    case MM_HYPERCALLS:
        return &stats.hypercalls;
    case MM_TRAPS_EMULATED:
        return &stats.traps_emulated;
    case MM_FAULTS:
        return &stats.faults;
    case MM_TLB_FLUSHES:
        return &stats.tlb_flushes;
    case MM_SHOOTDOWNS:
        return &stats.shootdowns;
    case MM_SHOOTDOWN_IPIS:
        return &stats.shootdown_ipis;
    case MM_FLUSH_HYPERCALLS:
        return &stats.flush_hypercalls;
    }
    return &stats.ptes; /* unreachable: every enumerator is handled */
}

void mm_stats_add(enum mm_stat which, uint64_t n)
{
    __atomic_fetch_add(counter(which), n, __ATOMIC_RELAXED);
}

void mm_stats_multicall(unsigned entries)
{
    uint64_t max = __atomic_load_n(&stats.mc_entries_max, __ATOMIC_RELAXED);

    __atomic_fetch_add(&stats.hypercalls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&stats.multicalls, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&stats.mc_entries, entries, __ATOMIC_RELAXED);
    while (entries > max && !__atomic_compare_exchange_n(&stats.mc_entries_max, &max, entries,
                                                         false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void mm_stats_reset(void)
{
    __atomic_store_n(&stats.ptes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.hypercalls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.multicalls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.mc_entries, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.mc_entries_max, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.traps_emulated, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.faults, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.tlb_flushes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.shootdowns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.shootdown_ipis, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stats.flush_hypercalls, 0, __ATOMIC_RELAXED);
}

void mm_stats_read(struct mm_stats *out)
{
    out->ptes = __atomic_load_n(&stats.ptes, __ATOMIC_RELAXED);
    out->hypercalls = __atomic_load_n(&stats.hypercalls, __ATOMIC_RELAXED);
    out->multicalls = __atomic_load_n(&stats.multicalls, __ATOMIC_RELAXED);
    out->mc_entries = __atomic_load_n(&stats.mc_entries, __ATOMIC_RELAXED);
    out->mc_entries_max = __atomic_load_n(&stats.mc_entries_max, __ATOMIC_RELAXED);
    out->traps_emulated = __atomic_load_n(&stats.traps_emulated, __ATOMIC_RELAXED);
    out->faults = __atomic_load_n(&stats.faults, __ATOMIC_RELAXED);
    out->tlb_flushes = __atomic_load_n(&stats.tlb_flushes, __ATOMIC_RELAXED);
    out->shootdowns = __atomic_load_n(&stats.shootdowns, __ATOMIC_RELAXED);
    out->shootdown_ipis = __atomic_load_n(&stats.shootdown_ipis, __ATOMIC_RELAXED);
    out->flush_hypercalls = __atomic_load_n(&stats.flush_hypercalls, __ATOMIC_RELAXED);
}

/* Entries per multicall in hundredths, rounded to nearest. */
static uint64_t mean_hundredths(const struct mm_stats *s)
{
    return s->multicalls ? (s->mc_entries * 100 + s->multicalls / 2) / s->multicalls : 0;
}

int mm_stats_format(char *buf, size_t size, const struct mm_stats *s)
{
    uint64_t mean = mean_hundredths(s);

    return ksnprintf(
        buf, size,
        "mmstats: ptes=%lu hypercalls=%lu multicalls=%lu mc_entries_mean=%lu.%02lu "
        "mc_entries_max=%lu traps_emulated=%lu faults=%lu tlb_flushes=%lu shootdowns=%lu "
        "shootdown_ipis=%lu flush_hypercalls=%lu",
        s->ptes, s->hypercalls, s->multicalls, mean / 100, mean % 100, s->mc_entries_max,
        s->traps_emulated, s->faults, s->tlb_flushes, s->shootdowns, s->shootdown_ipis,
        s->flush_hypercalls);
}
