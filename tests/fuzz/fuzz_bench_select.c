/* bench/select.c: bench_select over a table whose names share prefixes
 * with each other and with its groups. Checks the result against a plain
 * re-reading of the list, that chosen[] is written only inside its count,
 * and that each unknown word is reported once, cut to a bounded length. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/select.h"
#include "tests/fuzz/fuzz.h"

#define WORD_SHOWN_MAX 48 /* bench/select.c's cut */
#define REPORT_START "bench: unknown benchmark '"

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

static int reports;
static bool in_report;

int kprintf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    FUZZ_CHECK(n >= 0);
    if (strncmp(buf, REPORT_START, strlen(REPORT_START)) == 0) {
        /* Opens a report: the quoted word is cut to WORD_SHOWN_MAX. */
        FUZZ_CHECK(!in_report);
        FUZZ_CHECK((size_t)n <= strlen(REPORT_START "' (known: all") + WORD_SHOWN_MAX);
        in_report = true;
        reports++;
    } else {
        FUZZ_CHECK(in_report);
        if (strcmp(buf, ")\n") == 0)
            in_report = false;
    }
    return n;
}

static bool word_is(const char *w, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(w, name, len) == 0;
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
        if (len > 0) {
            bool any = word_is(w, len, "all");
            for (size_t i = 0; i < COUNT; i++) {
                if (any || word_is(w, len, table[i]->name) ||
                    word_is(w, len, table[i]->group->name))
                    expect[i] = true;
            }
            for (size_t i = 0; i < COUNT; i++)
                any = any || word_is(w, len, table[i]->name) ||
                      word_is(w, len, table[i]->group->name);
            expect_unknown += !any;
        }
        if (w[len] == '\0')
            break;
        w += len + 1;
    }
    reports = 0;
    in_report = false;
    unknown = bench_select(list, table, COUNT, chosen);
    FUZZ_CHECK(!in_report);
    FUZZ_CHECK(unknown == expect_unknown && reports == unknown);
    FUZZ_CHECK(memcmp(chosen, expect, sizeof(expect)) == 0);
    free(chosen);
    free(list);
    return 0;
}
