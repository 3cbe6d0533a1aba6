/* The native clock: TSC ticks since boot, scaled to ns. The TSC never goes
 * backwards on one CPU, and the scaling is monotonic, so neither does the
 * clock. */
#include "arch/x86/tsc.h"

#include "arch/x86/cpu.h"
#include "kernel/clock_scale.h"
#include "kernel/exit.h"
#include "kernel/time.h"

static uint64_t tsc_at_zero;
static struct clock_scale tsc_to_ns;

void tsc_clock_init(uint64_t tsc_hz)
{
    if (!clock_scale_init(&tsc_to_ns, tsc_hz, NSEC_PER_SEC))
        panic("time: cannot scale a %lu Hz TSC to ns", tsc_hz);
    tsc_at_zero = rdtsc();
}

uint64_t tsc_now_ns(void)
{
    return clock_scale_apply(&tsc_to_ns, rdtsc() - tsc_at_zero);
}
