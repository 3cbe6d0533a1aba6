/* What patching costs while the kernel runs: one static-call retarget,
 * the smallest live patch (kernel/live_patch.c). With one CPU it is one write
 * through pv_patch_ops.text_poke; with several, an int3, the rest, the
 * first byte and the first byte again, each write followed by a sync that
 * interrupts every CPU and waits until each has serialized. */
#include "bench/bench.h"
#include "bench/loop.h"
#include "kernel/smp.h"
#include "kernel/static_call.h"

#define RETARGET_ITERS 200
#define SYNC_ITERS 200

static int retarget_even(void)
{
    return 0;
}

static int retarget_odd(void)
{
    return 1;
}

DEFINE_STATIC_CALL(bench_retarget, retarget_even);
DECLARE_STATIC_CALL(bench_retarget, retarget_even);

static uint64_t retargets;

/* Every retarget must have landed: the call goes where the last one said. */
static const char *check_retarget(void)
{
    return static_call(bench_retarget)() == (int)(retargets & 1)
               ? 0
               : "the static call kept an old target";
}

static uint64_t measure_retarget(uint64_t n)
{
    return BENCH_TIME_LOOP(n, {
        retargets++;
        static_call_update(bench_retarget, (retargets & 1) ? retarget_odd : retarget_even);
    });
}

BENCH_DEFINE(static_call_retarget, patching,
             "`static_call_update()`: one live patch of a 5-byte jmp, syncing every CPU on SMP",
             .iters = RETARGET_ITERS, .measure = measure_retarget, .check = check_retarget);

/* ---- smp_sync: what each of a live patch's syncs costs, the IPIs alone:
 * one to every CPU, the caller's own included, and a wait until each has
 * answered (natively through the LAPIC, under Xen an event channel each,
 * under PVH either: xen.ipi=). */

static uint64_t measure_smp_sync(uint64_t n)
{
    return BENCH_TIME_LOOP(n, smp_sync_cores());
}

BENCH_DEFINE(smp_sync, patching,
             "`smp_sync_cores()`: an IPI to every CPU and a wait until each has serialized",
             .iters = SYNC_ITERS, .subtract_loop = true, .measure = measure_smp_sync);
