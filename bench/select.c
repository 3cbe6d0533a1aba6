/* Parsing bench=: a comma-separated list of benchmark names, group names
 * and "all". The command-line parser checks enum options itself; for a
 * list it cannot, so this reports unknown words in the same style. */
#include "bench/select.h"

#include "bench/bench.h"
#include "kernel/console.h"
#include "kernel/string.h"

#define WORD_MAX 48

static bool word_is(const char *word, size_t len, const char *name)
{
    return strlen(name) == len && strncmp(word, name, len) == 0;
}

/* Marks what word names; false if it names nothing. */
static bool mark(const char *word, size_t len, const struct bench *const table[], size_t count,
                 bool chosen[])
{
    bool all = word_is(word, len, "all"), found = all;

    for (size_t i = 0; i < count; i++) {
        if (all || word_is(word, len, table[i]->name) ||
            word_is(word, len, table[i]->group->name)) {
            chosen[i] = true;
            found = true;
        }
    }
    return found;
}

static size_t word_len(const char *s)
{
    size_t n = 0;

    while (s[n] && s[n] != ',')
        n++;
    return n;
}

static bool group_listed_before(const struct bench *const table[], size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (table[j]->group == table[i]->group)
            return true;
    return false;
}

static void report_unknown(const char *word, size_t len, const struct bench *const table[],
                           size_t count)
{
    kprintf("bench: unknown benchmark '%.*s' (known: all", (int)(len > WORD_MAX ? WORD_MAX : len),
            word);
    for (size_t i = 0; i < count; i++)
        if (!group_listed_before(table, i))
            kprintf(", %s", table[i]->group->name);
    for (size_t i = 0; i < count; i++)
        kprintf(", %s", table[i]->name);
    kprintf(")\n");
}

int bench_select(const char *list, const struct bench *const table[], size_t count, bool chosen[])
{
    int unknown = 0;

    while (*list) {
        size_t len = word_len(list);
        if (len > 0 && !mark(list, len, table, count, chosen)) {
            report_unknown(list, len, table, count);
            unknown++;
        }
        list += len;
        if (*list == ',')
            list++;
    }
    return unknown;
}
