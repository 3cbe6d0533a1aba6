/* Starting the other CPUs, and making every CPU serialize after a text
 * write. The boot CPU has patched every call site by now; later rewrites
 * go through kernel/live_patch.c, which syncs with smp_sync_cores(). Each
 * secondary runs on an idle thread's stack from the thread pool, so its
 * stack sits above a guard page like every other. */
#include "kernel/smp.h"

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/sched_core.h"
#include "kernel/time.h"
#include "pv/irq.h"
#include "pv/ops.h"

#define CPU_START_TIMEOUT_NS (1000 * NSEC_PER_MSEC)
#define SYNC_TIMEOUT_NS (2 * NSEC_PER_SEC)

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

static unsigned sync_pending; /* a bit per CPU that has still to serialize */
static unsigned sync_waiter;  /* the CPU smp_sync_cores() may halt on */

/* cpuid serializes (Intel SDM vol. 3, 8.3): whatever this CPU fetched
 * before is discarded, so it sees text another CPU wrote (SDM 8.1.3,
 * cross-modifying code). Xen's cpuid traps to Xen, which serializes too.
 * The last CPU to do so wakes the waiter. */
void smp_ipi_arrived(void)
{
    unsigned me = 1u << cpu_index();

    if (!(__atomic_load_n(&sync_pending, __ATOMIC_ACQUIRE) & me))
        return;
    pv_cpu_ops.cpuid(0, 0);
    if (__atomic_and_fetch(&sync_pending, ~me, __ATOMIC_SEQ_CST) == 0)
        pv_cpu_ops.send_ipi(__atomic_load_n(&sync_waiter, __ATOMIC_SEQ_CST));
}

/* Halts until an interrupt, unless every CPU has answered: the waiter
 * publishes itself before it looks, the last answer clears its bit before
 * it looks for the waiter, so one of the two sees the other. Halting, not
 * spinning, hands the physical CPU to the vCPUs being waited for when
 * there are fewer (under Xen, or QEMU on a small host); the scheduler's
 * tick bounds the halt. */
static void wait_for_answers(void)
{
    irq_disable();
    __atomic_store_n(&sync_waiter, cpu_index(), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&sync_pending, __ATOMIC_SEQ_CST))
        safe_halt();
    else
        irq_enable();
}

/* An IPI to every online CPU, the caller's own included (it may move
 * while it waits), and a wait until each has serialized. Only an
 * interrupt proves a CPU is between two of the interrupted code's
 * instructions, which is why the caller waits with interrupts enabled:
 * a CPU shooting down this one's TLB meanwhile needs its IPI taken. */
void smp_sync_cores(void)
{
    unsigned online = smp_cpus_online();
    unsigned all = online >= 32 ? ~0u : (1u << online) - 1;
    uint64_t deadline = time_now_ns() + SYNC_TIMEOUT_NS;
    unsigned pending;

    if (!(irq_save_flags() & X86_EFLAGS_IF))
        panic("smp: sync with interrupts disabled would wait for its own IPI forever");
    __atomic_store_n(&sync_pending, all, __ATOMIC_RELEASE);
    for (unsigned cpu = 0; cpu < online; cpu++)
        pv_cpu_ops.send_ipi(cpu);
    while ((pending = __atomic_load_n(&sync_pending, __ATOMIC_ACQUIRE))) {
        if (time_now_ns() > deadline)
            panic("smp: CPUs 0x%x did not serialize within 2 s of a text write", pending);
        wait_for_answers();
    }
}

static unsigned parked;     /* a bit per CPU parked now */
static unsigned park_round; /* moves on when the parked CPUs may go */
static bool park_resumed;   /* that round ended in a new domain */
static struct thread *park_threads[MAX_CPUS];
static const char *const park_names[MAX_CPUS] = {"park0", "park1", "park2", "park3",
                                                 "park4", "park5", "park6", "park7"};

/* A CPU's parking thread spins here with interrupts off until the
 * caller's work is done. A thread, not an interrupt handler: nothing the
 * CPU was handling is left half done across a suspend, to meet what a
 * resume rebuilt. It touches nothing shared but these words, so it can be
 * frozen, saved and thawed in another domain. After a resume it sets its
 * CPU up again (the platform's part, its timer). */
static void park_here(void *unused)
{
    unsigned cpu = cpu_index(), me = 1u << cpu;
    unsigned round = __atomic_load_n(&park_round, __ATOMIC_ACQUIRE);
    unsigned long flags = irq_save();

    (void)unused;
    __atomic_fetch_or(&parked, me, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&park_round, __ATOMIC_ACQUIRE) == round)
        __builtin_ia32_pause();
    if (__atomic_load_n(&park_resumed, __ATOMIC_ACQUIRE)) {
        pv_machine_ops.cpu_resume(cpu);
        timer_resume();
    }
    __atomic_fetch_and(&parked, ~me, __ATOMIC_SEQ_CST);
    irq_restore(flags);
}

/* Waits, with interrupts on, until the CPUs in mask are in (or out of)
 * park_here; panics past the time-out, naming them. */
static void wait_parked(unsigned mask, bool in, const char *what)
{
    uint64_t deadline = time_now_ns() + SYNC_TIMEOUT_NS;

    while ((__atomic_load_n(&parked, __ATOMIC_ACQUIRE) & mask) != (in ? mask : 0)) {
        if (time_now_ns() > deadline)
            panic("smp: CPUs 0x%x did not %s within 2 s", mask, what);
        __builtin_ia32_pause();
    }
}

unsigned smp_park_others(void)
{
    unsigned online = smp_cpus_online(), others = 0;

    if (!(irq_save_flags() & X86_EFLAGS_IF))
        panic("smp: parking with interrupts disabled: the caller must be a thread that can sleep");
    for (unsigned cpu = 0; cpu < online; cpu++)
        if (cpu != cpu_index())
            others |= 1u << cpu;
    __atomic_store_n(&park_resumed, false, __ATOMIC_RELEASE);
    for (unsigned cpu = 0; cpu < online; cpu++) {
        if (!(others & (1u << cpu)))
            continue;
        park_threads[cpu] = thread_create_on(cpu, park_names[cpu], park_here, 0);
        if (!park_threads[cpu])
            panic("smp: no thread slot to park CPU %u", cpu);
    }
    wait_parked(others, true, "park");
    return others;
}

void smp_unpark_others(unsigned others, bool resumed)
{
    __atomic_store_n(&park_resumed, resumed, __ATOMIC_RELEASE);
    __atomic_fetch_add(&park_round, 1, __ATOMIC_SEQ_CST);
    wait_parked(others, false, "leave their park");
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (others & (1u << cpu))
            thread_join(park_threads[cpu]);
}
