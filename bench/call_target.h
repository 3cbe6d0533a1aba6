/* What the call benchmarks call, and how: one target, reached directly,
 * through an ops-table slot, through a static call trampoline, and
 * through a retpoline thunk. */
#ifndef BENCH_CALL_TARGET_H
#define BENCH_CALL_TARGET_H

#include <stdint.h>

/* Counts its calls: the check that every call arrived. Defined in a file
 * of its own so no caller can inline it. */
void bench_call_target(void);
extern uint64_t bench_call_count;

/* An ops table of one slot, written at run time, so the compiler has to
 * call through it: `call *slot(%rip)`, the shape of an unpatched pv site. */
struct bench_call_ops {
    void (*fn)(void);
};
extern struct bench_call_ops bench_call_ops;

/* The ticks n calls through bench_call_ops.fn take when built with
 * retpolines (bench/call_retpoline.c). */
uint64_t bench_measure_retpoline_call(uint64_t n);

#endif
