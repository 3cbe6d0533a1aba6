#include "kernel/exit.h"

#include <stdarg.h>
#include <stdbool.h>

#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "pv/irq.h"
#include "pv/ops.h"

/* One verdict per run: the first CPU to end the run does; any other
 * that tries meanwhile (a second CPU's panic) waits here for the end.
 * With one CPU, the per-CPU area may not even be set up yet. */
static int ending_cpu = -1;

static void claim_the_end(void)
{
    int none = -1, me = smp_cpus_online() > 1 ? (int)cpu_index() : 0;

    if (__atomic_compare_exchange_n(&ending_cpu, &none, me, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE) ||
        none == me)
        return;
    irq_disable();
    for (;;)
        __builtin_ia32_pause();
}

void kernel_exit(int status, const char *reason)
{
    claim_the_end();
    if (status == EXIT_CLEAN)
        kprintf("patchbay: PASS\n");
    else
        kprintf("patchbay: FAIL %s\n", reason);
    pv_machine_ops.exit(status);
}

void panic(const char *fmt, ...)
{
    static int panicking;
    char reason[160];
    va_list ap;

    claim_the_end();
    if (panicking++) /* a panic while panicking: just stop */
        pv_machine_ops.exit(EXIT_FAILURE);
    va_start(ap, fmt);
    kvsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    if (smp_cpus_online() > 1)
        kprintf("panic: cpu %u: %s\n", cpu_index(), reason);
    else
        kprintf("panic: %s\n", reason);
    kernel_exit(EXIT_FAILURE, "panic");
}
