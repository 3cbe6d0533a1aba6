#include "bench/order.h"

#include "bench/bench.h"
#include "kernel/string.h"

static int compare(const struct bench *a, const struct bench *b)
{
    if (a->group != b->group) {
        if (a->group->rank != b->group->rank)
            return a->group->rank < b->group->rank ? -1 : 1;
        return strcmp(a->group->name, b->group->name);
    }
    return strcmp(a->name, b->name);
}

void bench_sort(const struct bench *table[], size_t count)
{
    for (size_t i = 1; i < count; i++) {
        const struct bench *b = table[i];
        size_t j = i;
        for (; j > 0 && compare(table[j - 1], b) > 0; j--)
            table[j] = table[j - 1];
        table[j] = b;
    }
}
