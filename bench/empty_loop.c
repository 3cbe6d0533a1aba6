/* The empty loop, in a function of its own: compiled like each
 * benchmark's measure(), so the loop the compiler makes has the same
 * shape (counter, compare, branch) as theirs. Inlined into the runner it
 * came out one instruction longer. */
#include "bench/empty_loop.h"

#include "bench/loop.h"

__attribute__((noinline)) uint64_t bench_empty_loop(uint64_t n)
{
    return BENCH_TIME_LOOP(n, );
}
