/* Parsing bench=: a comma-separated list of benchmark names, group names
 * and "all". The words are this file's to say (bench_words), so that the
 * command-line parser checks every word against them before anything
 * runs, and reports an unknown one as it does an unknown option. */
#include "bench/select.h"

#include "bench/bench.h"
#include "kernel/string.h"

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

static bool group_listed_before(const struct bench *const table[], size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (table[j]->group == table[i]->group)
            return true;
    return false;
}

void bench_words(const struct bench *const table[], size_t count, option_word_fn fn, void *ctx)
{
    fn("all", ctx);
    for (size_t i = 0; i < count; i++)
        if (!group_listed_before(table, i))
            fn(table[i]->group->name, ctx);
    for (size_t i = 0; i < count; i++)
        fn(table[i]->name, ctx);
}

int bench_select(const char *list, const struct bench *const table[], size_t count, bool chosen[])
{
    int unknown = 0;

    for (;;) {
        size_t len = 0;
        while (list[len] && list[len] != ',')
            len++;
        if (!mark(list, len, table, count, chosen))
            unknown++;
        if (!list[len])
            return unknown;
        list += len + 1;
    }
}
