#ifndef BENCH_EMPTY_LOOP_H
#define BENCH_EMPTY_LOOP_H

#include <stdint.h>

/* The ticks BENCH_LOOP(n, ) takes: the loop's own cost. */
uint64_t bench_empty_loop(uint64_t n);

#endif
