/* The ops-table call again, compiled with -mindirect-branch=thunk-extern
 * (the Makefile sets it for this one object): the indirect call becomes a
 * call to __x86_indirect_thunk_<reg> (arch/x86/retpoline.asm), the 2018
 * Spectre v2 mitigation whose cost made the "jump functions" (static
 * calls) worth having. */
#include "bench/call_target.h"
#include "bench/loop.h"

uint64_t bench_measure_retpoline_call(uint64_t n)
{
    return BENCH_TIME_LOOP(n, bench_call_ops.fn());
}
