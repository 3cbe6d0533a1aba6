/* Which benchmarks bench=NAME[,NAME...] asks for. */
#ifndef BENCH_SELECT_H
#define BENCH_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/cmdline.h"

struct bench;

/* Hands fn each word bench= takes, for the count benchmarks in table[]:
 * "all", each group's name once, then each benchmark's name, in table
 * order. The command-line parser refuses any other word. */
void bench_words(const struct bench *const table[], size_t count, option_word_fn fn, void *ctx);

/* Marks chosen[i] for each benchmark a word of list names: its name, its
 * group's name, or "all". Returns how many words name nothing, an empty
 * word included: none once the parser has passed the list. */
int bench_select(const char *list, const struct bench *const table[], size_t count, bool chosen[]);

#endif
