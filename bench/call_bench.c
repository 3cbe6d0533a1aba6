/* The cost of a call, four ways, to the same target: the 2018 "jump
 * functions" comparison. A direct call; an indirect call through an ops
 * table (what an unpatched pv site runs); a static call (a direct call to
 * a trampoline holding one direct jmp, retargeted at run time); and the
 * indirect call through a retpoline. */
#include "bench/bench.h"
#include "bench/call_target.h"
#include "bench/loop.h"
#include "kernel/static_call.h"

#define CALL_ITERS 100000

/* The trampoline's first target; only its asm refers to it. */
static __attribute__((used)) void bench_call_nothing(void)
{
}
DEFINE_STATIC_CALL(bench_call, bench_call_nothing);
DECLARE_STATIC_CALL(bench_call, bench_call_nothing);

static uint64_t calls_expected;

/* Points every route at the counting target, so the check can tell a
 * call that went nowhere. */
static const char *prepare_calls(void)
{
    bench_call_ops.fn = bench_call_target;
    static_call_update(bench_call, bench_call_target);
    bench_call_count = calls_expected = 0;
    return 0;
}

static const char *check_calls(void)
{
    return bench_call_count == calls_expected ? 0 : "the target ran a different number of times";
}

static uint64_t measure_direct(uint64_t n)
{
    calls_expected += n;
    return BENCH_TIME_LOOP(n, bench_call_target());
}

static uint64_t measure_indirect(uint64_t n)
{
    calls_expected += n;
    return BENCH_TIME_LOOP(n, bench_call_ops.fn());
}

static uint64_t measure_static(uint64_t n)
{
    calls_expected += n;
    return BENCH_TIME_LOOP(n, static_call(bench_call)());
}

static uint64_t measure_retpoline(uint64_t n)
{
    calls_expected += n;
    return bench_measure_retpoline_call(n);
}

#define CALL_BENCH(id_, measure_, description_)                                                    \
    BENCH_DEFINE(id_, calls, description_, .iters = CALL_ITERS, .subtract_loop = true,             \
                 .prepare = prepare_calls, .measure = measure_, .check = check_calls)

CALL_BENCH(call_direct, measure_direct, "`call target`");
CALL_BENCH(call_indirect, measure_indirect, "`call *ops(%rip)`: the shape of an unpatched pv site");
CALL_BENCH(call_static, measure_static,
           "a static call: `call trampoline`, whose `jmp` was retargeted at run time");
CALL_BENCH(call_retpoline, measure_retpoline,
           "the indirect call built with `-mindirect-branch=thunk-extern`: "
           "`call __x86_indirect_thunk_rax`");
