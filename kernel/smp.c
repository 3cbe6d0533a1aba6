/* Starting the other CPUs. The boot CPU has patched every call site by
 * now, so no CPU ever runs a site while it is being rewritten; runtime
 * rewrites check smp_cpus_online() (pv/static_call.c). Each secondary
 * runs on an idle thread's stack from the thread pool, so its stack sits
 * above a guard page like every other. */
#include "kernel/smp.h"

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/sched_core.h"
#include "kernel/time.h"
#include "pv/ops.h"

#define CPU_START_TIMEOUT_NS (1000 * NSEC_PER_MSEC)

static uint64_t max_cpus = MAX_CPUS;
OPTION_UINT(max_cpus, "smp.cpus", 1, MAX_CPUS, "start at most this many CPUs");

unsigned smp_online_count = 1;
static struct thread *idle_threads[MAX_CPUS];
static const char *const idle_names[MAX_CPUS] = {"idle0", "idle1", "idle2", "idle3",
                                                 "idle4", "idle5", "idle6", "idle7"};

void smp_cpu_main(unsigned cpu)
{
    __atomic_fetch_add(&smp_online_count, 1, __ATOMIC_RELEASE);
    sched_run_idle(idle_threads[cpu]);
}

/* Starts cpu and waits, bounded, for it to report in. */
static bool start_one(unsigned cpu)
{
    unsigned before = smp_cpus_online();
    struct thread *idle = thread_alloc(idle_names[cpu], 0, 0);
    const char *how;

    if (!idle) {
        kprintf("smp: cpu %u: no stack slot for its idle thread\n", cpu);
        return false;
    }
    idle_threads[cpu] = idle;
    console_share();
    how = pv_cpu_ops.start_cpu(cpu, thread_stack_top(idle));
    if (!how)
        return false;
    for (uint64_t end = time_now_ns() + CPU_START_TIMEOUT_NS; smp_cpus_online() == before;) {
        if (time_now_ns() > end) {
            kprintf("smp: cpu %u (%s) did not report in within a second\n", cpu, how);
            return false;
        }
        __builtin_ia32_pause();
    }
    kprintf("smp: cpu %u up (%s)\n", cpu, how);
    return true;
}

void smp_start_cpus(void)
{
    unsigned possible = pv_cpu_ops.cpus_possible();
    unsigned want = possible < max_cpus ? possible : (unsigned)max_cpus;

    for (unsigned cpu = 1; cpu < want; cpu++) {
        if (!start_one(cpu))
            break;
    }
    kprintf("smp: %u CPU%s running\n", smp_cpus_online(), smp_cpus_online() == 1 ? "" : "s");
}
