/* bench/select.c: bench_select over a table whose names share prefixes
 * with each other and with its groups. Checks the result against a plain
 * re-reading of the list, that chosen[] is written only inside its count,
 * that the count of words naming nothing is right (an empty word
 * included), and that a word names something exactly when bench_words
 * offers it, so the command-line parser refuses just the words that
 * would select nothing. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/select.h"
#include "tests/fuzz/fuzz.h"

static const struct bench_group irq = {.name = "irq", .title = "irq", .rank = 10};
static const struct bench_group calls = {.name = "calls", .title = "calls", .rank = 20};
static const struct bench entries[] = {
    {.name = "irq_disable", .group = &irq},
    {.name = "irq", .group = &calls}, /* a name that is also another group's */
    {.name = "call_direct", .group = &calls},
    {.name = "call", .group = &calls},
    {.name = "i", .group = &irq},
};
#define COUNT (sizeof(entries) / sizeof(entries[0]))
static const struct bench *const table[COUNT] = {&entries[0], &entries[1], &entries[2], &entries[3],
                                                 &entries[4]};

static bool word_is(const char *w, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(w, name, len) == 0;
}

struct offered {
    const char *word;
    size_t len;
    bool found;
};

static void match_offered(const char *word, void *ctx)
{
    struct offered *o = ctx;

    o->found = o->found || word_is(o->word, o->len, word);
}

static bool offered(const char *w, size_t len)
{
    struct offered o = {w, len, false};

    bench_words(table, COUNT, match_offered, &o);
    return o.found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = fuzz_strdup(data, size);
    /* Exactly COUNT entries, so a write past them is a sanitizer report. */
    bool *chosen = calloc(COUNT, sizeof(bool));
    bool expect[COUNT] = {false};
    int unknown, expect_unknown = 0;
    const char *w = list;

    FUZZ_CHECK(chosen != NULL);
    for (;;) {
        size_t len = strcspn(w, ",");
        bool any = word_is(w, len, "all");
        for (size_t i = 0; i < COUNT; i++) {
            if (any || word_is(w, len, table[i]->name) || word_is(w, len, table[i]->group->name))
                expect[i] = true;
        }
        for (size_t i = 0; i < COUNT; i++)
            any = any || word_is(w, len, table[i]->name) || word_is(w, len, table[i]->group->name);
        FUZZ_CHECK(any == offered(w, len));
        expect_unknown += !any;
        if (w[len] == '\0')
            break;
        w += len + 1;
    }
    unknown = bench_select(list, table, COUNT, chosen);
    FUZZ_CHECK(unknown == expect_unknown);
    FUZZ_CHECK(memcmp(chosen, expect, sizeof(expect)) == 0);
    free(chosen);
    free(list);
    return 0;
}
