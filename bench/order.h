/* The order benchmarks run and are listed in. */
#ifndef BENCH_ORDER_H
#define BENCH_ORDER_H

#include <stddef.h>

struct bench;

/* Every registered benchmark into out[], grouped (irq, calls, locks,
 * sched, pte, xen, then any other group) and by name within a group:
 * the compiler emits a file's registrations in no promised order.
 * Returns the count; panics if there are more than max. */
size_t bench_ordered(const struct bench *out[], size_t max);

#endif
