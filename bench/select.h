/* Which benchmarks bench=NAME[,NAME...] asks for. */
#ifndef BENCH_SELECT_H
#define BENCH_SELECT_H

#include <stdbool.h>
#include <stddef.h>

struct bench;

/* Marks chosen[i] for each of the count benchmarks in table[] that list
 * names: a benchmark's name, its group's name, or "all". Each unknown
 * word gets one line naming every known word; the rest still count.
 * Returns how many words were unknown. */
int bench_select(const char *list, const struct bench *const table[], size_t count, bool chosen[]);

#endif
