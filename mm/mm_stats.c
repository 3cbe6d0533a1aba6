#include "mm/mm_stats.h"

#include <stdbool.h>

#include "kernel/printf.h"

static struct mm_stats stats;

#define MM_STATS_CASE_(field, name)                                                                \
    case MM_##name:                                                                                \
        return &stats.field;
#define MM_STATS_NONE_(field, shown)

static uint64_t *counter(enum mm_stat which)
{
    switch (which) {
        MM_STATS(MM_STATS_CASE_, MM_STATS_NONE_)
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

#define MM_STATS_RESET_(field, ...) __atomic_store_n(&stats.field, 0, __ATOMIC_RELAXED);
void mm_stats_reset(void)
{
    MM_STATS(MM_STATS_RESET_, MM_STATS_RESET_)
}

#define MM_STATS_READ_(field, ...) out->field = __atomic_load_n(&stats.field, __ATOMIC_RELAXED);
void mm_stats_read(struct mm_stats *out)
{
    MM_STATS(MM_STATS_READ_, MM_STATS_READ_)
}

/* total per multicall in hundredths, rounded to nearest. */
static uint64_t hundredths_per_multicall(const struct mm_stats *s, uint64_t total)
{
    return s->multicalls ? (total * 100 + s->multicalls / 2) / s->multicalls : 0;
}

/* The line's format and arguments, a piece per counter, made at compile
 * time so the compiler checks one against the other. */
#define MM_FORMAT_COUNT_(field) " " #field "=%lu"
#define MM_FORMAT_MEAN_(field) " " #field "_mean=%lu.%02lu"
#define MM_FORMAT_ADDED_(field, name) MM_FORMAT_COUNT_(field)
#define MM_FORMAT_KEPT_(field, shown) MM_FORMAT_##shown##_(field)
#define MM_ARGS_COUNT_(field) , s->field
#define MM_ARGS_MEAN_(field)                                                                       \
    , hundredths_per_multicall(s, s->field) / 100, hundredths_per_multicall(s, s->field) % 100
#define MM_ARGS_ADDED_(field, name) MM_ARGS_COUNT_(field)
#define MM_ARGS_KEPT_(field, shown) MM_ARGS_##shown##_(field)

int mm_stats_format(char *buf, size_t size, const struct mm_stats *s)
{
    return ksnprintf(buf, size,
                     "mmstats:" MM_STATS(MM_FORMAT_ADDED_, MM_FORMAT_KEPT_)
                         MM_STATS(MM_ARGS_ADDED_, MM_ARGS_KEPT_));
}
