/* The order benchmarks run and are listed in. */
#ifndef BENCH_ORDER_H
#define BENCH_ORDER_H

#include <stddef.h>

struct bench;

/* Sorts table[] by group rank (bench/groups.c), then by name within a
 * group: the compiler emits a file's registrations in no promised order,
 * and tools/bench_report.py sorts the image's list the same way. */
void bench_sort(const struct bench *table[], size_t count);

#endif
