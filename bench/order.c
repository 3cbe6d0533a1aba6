#include "bench/order.h"

#include "bench/bench.h"
#include "kernel/exit.h"
#include "kernel/string.h"

static const char *const group_order[] = {"irq", "calls", "locks", "sched", "pte", "xen"};
#define GROUPS (sizeof(group_order) / sizeof(group_order[0]))

static size_t group_rank(const char *group)
{
    size_t i = 0;

    while (i < GROUPS && strcmp(group, group_order[i]) != 0)
        i++;
    return i;
}

static int compare(const struct bench *a, const struct bench *b)
{
    size_t ra = group_rank(a->group), rb = group_rank(b->group);

    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra == GROUPS) {
        int by_group = strcmp(a->group, b->group);
        if (by_group)
            return by_group;
    }
    return strcmp(a->name, b->name);
}

size_t bench_ordered(const struct bench *out[], size_t max)
{
    size_t count = (size_t)(__stop_benches - __start_benches);

    if (count > max)
        panic("bench: %zu benchmarks registered, room for %zu", count, max);
    for (size_t i = 0; i < count; i++) {
        const struct bench *b = &__start_benches[i];
        size_t j = i;
        for (; j > 0 && compare(out[j - 1], b) > 0; j--)
            out[j] = out[j - 1];
        out[j] = b;
    }
    return count;
}
