/* lifecycle=N: the domain lives through N saves, restores or moves by its
 * toolstack while it runs (tools/run --domu --lifecycle PLAN sets N), and
 * checks itself after each. A thread on the boot CPU answers the
 * toolstack's requests (pv_machine_ops.lifecycle_request); for a suspend
 * it waits for a safe point (no live patch; the other CPUs parked, each
 * in a thread of its own; no mprotect: every lazy MMU section and
 * multicall batch is inside vm_hold), and lets the platform suspend. A
 * counting thread on every CPU keeps a count in memory and its own copy,
 * and reads the clock. After each resume: the count went on where it
 * stopped on every CPU, the clock did not go back, the W^X count and
 * every patched site's bytes are as before; a failure ends the run. */
#include "kernel/lifecycle.h"

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/live_patch.h"
#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/workload.h"
#include "kernel/write_barrier.h"
#include "mm/kernel_map.h"
#include "mm/vm.h"
#include "pv/irq.h"
#include "pv/ops.h"
#include "pv/site.h"

#define MAX_RESUMES 1000
#define POLL_NS (20 * NSEC_PER_MSEC)    /* how often the toolstack's requests are looked at */
#define COUNT_NS (1 * NSEC_PER_MSEC)    /* each counting thread's step */
#define RUN_AGAIN_NS (2 * NSEC_PER_SEC) /* every CPU counts again within this of a resume */
/* Steps each count must take: more than one, as a counting thread that was
 * runnable when the domain stopped takes one step without a timer. */
#define STEPS_AGAIN 5

static uint64_t resumes_wanted;
OPTION_UINT(resumes_wanted, "lifecycle", 0, MAX_RESUMES,
            "resumes to live through: the toolstack saves and restores, or moves, the domain "
            "(tools/run --domu --lifecycle)");
static uint64_t timeout_s = 900;
OPTION_UINT(timeout_s, "lifecycle.timeout", 1, 86400, "seconds to wait for every resume");
static const char *const mutant_names[] = {"none", "deaf", "no-rebind", "stale-frame", 0};
static int mutant;
OPTION_ENUM(mutant, "lifecycle.mutant", mutant_names,
            "test only: ignore suspend requests (deaf), or break the resume");

/* A mutant breaks a run lifecycle= asks for; stale-frame keeps a machine
 * frame, which only a PV guest has. */
static const char *mutant_has_a_run_to_break(void)
{
    if (mutant == LIFECYCLE_SOUND)
        return NULL;
    if (resumes_wanted == 0)
        return "lifecycle.mutant= breaks the resumes lifecycle= asks for, and it asks for none";
    if (mutant == LIFECYCLE_STALE_FRAME && !(pv_info.caps & PV_CAP_XEN_PV))
        return "lifecycle.mutant=stale-frame needs a PV guest: no other keeps a machine frame";
    return NULL;
}
OPTION_CHECK(mutant_has_a_run_to_break);

extern const struct pv_site __pv_sites_start[], __pv_sites_end[];

struct counter {
    volatile uint64_t count; /* in guest memory, stepped every COUNT_NS */
    uint64_t last_ns;        /* the clock at the last step: never more than now */
    struct thread *thread;
};

static struct counter counters[MAX_CPUS];
static struct thread *answerer;
static unsigned resumes, domains[MAX_RESUMES + 1];
static uint64_t deadline_ns;
static bool finished; /* the counting threads and the answerer end */
static struct lifecycle_hook *hooks, **hooks_tail = &hooks;

int lifecycle_mutant(void)
{
    return mutant;
}

void lifecycle_register(struct lifecycle_hook *h)
{
    h->next = NULL;
    *hooks_tail = h;
    hooks_tail = &h->next;
}

/* Suspends run last registered first, so what a device relies on (the
 * grant table under a frontend) goes after it and comes back before it. */
static void suspend_hooks(const struct lifecycle_hook *h)
{
    if (!h)
        return;
    suspend_hooks(h->next);
    if (h->suspend)
        h->suspend();
}

/* Counts, checking its own copy against memory and the clock against
 * its last reading; across a resume both must carry on. */
static void count(void *arg)
{
    struct counter *c = arg;
    uint64_t mine = c->count;

    while (!__atomic_load_n(&finished, __ATOMIC_ACQUIRE)) {
        uint64_t now = time_now_ns();
        if (c->count != mine)
            panic("lifecycle: CPU %u's count is %lu in memory, %lu in its thread", cpu_index(),
                  c->count, mine);
        if (now < c->last_ns)
            panic("lifecycle: the clock went back %lu ns", c->last_ns - now);
        c->last_ns = now;
        c->count = ++mine;
        sleep_until(now + COUNT_NS);
    }
}

/* FNV-1a over every patched site's bytes as they are now. */
static uint64_t sites_hash(void)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (const struct pv_site *s = __pv_sites_start; s < __pv_sites_end; s++)
        for (unsigned i = 0; i < s->len; i++)
            h = (h ^ ((const uint8_t *)s->addr)[i]) * 0x100000001b3ull;
    return h;
}

/* Busy-waits, yielding, until every CPU's count has moved on by
 * STEPS_AGAIN, each step a sleep its timer ended: a CPU whose timer or
 * events were lost stops counting, and this CPU's own timer may be
 * among them, so nothing here sleeps. */
static void check_counting(const uint64_t *before, unsigned n)
{
    uint64_t end = time_now_ns() + RUN_AGAIN_NS;
    unsigned stuck;

    do {
        stuck = 0;
        for (unsigned cpu = 0; cpu < smp_cpus_online(); cpu++)
            if (counters[cpu].count < before[cpu] + STEPS_AGAIN)
                stuck |= 1u << cpu;
        if (!stuck)
            return;
        thread_yield();
    } while (time_now_ns() < end);
    panic("lifecycle: after resume %u, CPUs 0x%x did not count %d steps within 2 s (their "
          "timer or events did not come back)",
          n, stuck, STEPS_AGAIN);
}

/* What the workload did since the last resume (or the start): under a
 * live migration Xen tracks the pages it dirties meanwhile. */
static void report_workload(void)
{
    static uint64_t last_cycles, last_ns;
    uint64_t cycles, ns;

    write_barrier_progress(&cycles, &ns);
    if (cycles > last_cycles) {
        uint64_t each_us = (ns - last_ns) / (cycles - last_cycles) / 1000;
        char since[24] = "the start";
        if (resumes)
            ksnprintf(since, sizeof(since), "resume %u", resumes);
        kprintf("lifecycle: wl %lu cycles since %s, %lu.%03lu ms each\n", cycles - last_cycles,
                since, each_us / 1000, each_us % 1000);
    }
    last_cycles = cycles;
    last_ns = ns;
}

/* The safe point, the park, the platform's suspend; then the checks. */
static void suspend_once(void)
{
    uint64_t wx = kernel_map_count_wx(), sites = sites_hash(), before_ns, after_ns;
    uint64_t counts[MAX_CPUS];
    unsigned others, cpus = 0, n;
    unsigned long flags;
    int rc;

    /* The last line before the suspend: the backend drains the console,
     * so it arrives before the domain stops (tests look for it). */
    report_workload();
    kprintf("lifecycle: suspend %u: domain %u asked to suspend\n", resumes + 1, domains[resumes]);
    live_patch_hold();
    /* Parked first: a CPU waiting for vm_lock is not preempted, so its
     * parking thread would never run behind our hold. */
    others = smp_park_others();
    vm_hold();
    flags = irq_save();
    for (unsigned cpu = 0; cpu < smp_cpus_online(); cpu++)
        counts[cpu] = counters[cpu].count;
    before_ns = time_now_ns();
    suspend_hooks(hooks);
    rc = pv_machine_ops.suspend();
    if (rc == 0)
        timer_resume();
    after_ns = time_now_ns();
    irq_restore(flags);
    vm_unhold();
    smp_unpark_others(others, rc == 0);
    live_patch_unhold();
    for (struct lifecycle_hook *h = hooks; h; h = h->next)
        if (h->resume)
            h->resume(rc == 0);
    if (rc != 0) {
        kprintf("lifecycle: suspend cancelled, still domain %u\n", domains[resumes]);
        return;
    }
    /* resumes counts this one only once it is checked: until then the
     * workload and the counting threads must go on (lifecycle_waiting). */
    n = resumes + 1;
    domains[n] = pv_machine_ops.domain_id();
    if (domains[n] == domains[n - 1])
        panic("lifecycle: resume %u in domain %u, the one that suspended", n, domains[n]);
    check_counting(counts, n);
    for (unsigned cpu = 0; cpu < smp_cpus_online(); cpu++)
        cpus |= 1u << cpu;
    if (kernel_map_count_wx() != wx)
        panic("lifecycle: %lu pages writable and executable after resume %u, %lu before",
              kernel_map_count_wx(), n, wx);
    if (sites_hash() != sites)
        panic("lifecycle: the patched sites' bytes changed across resume %u", n);
    kprintf("lifecycle: resume %u/%lu: domain %u -> %u, clock gap %lu.%03lu ms, CPUs 0x%x "
            "counting, W^X and %ld sites unchanged\n",
            n, resumes_wanted, domains[n - 1], domains[n], (after_ns - before_ns) / NSEC_PER_MSEC,
            (after_ns - before_ns) / 1000 % 1000, cpus, (long)(__pv_sites_end - __pv_sites_start));
    __atomic_store_n(&resumes, n, __ATOMIC_RELEASE);
}

/* Answers the toolstack until every resume came, or the time is up. */
static void answer(void *unused)
{
    (void)unused;
    if (mutant == LIFECYCLE_DEAF)
        kprintf("lifecycle: not answering the toolstack (lifecycle.mutant=deaf)\n");
    while (!__atomic_load_n(&finished, __ATOMIC_ACQUIRE) && resumes < resumes_wanted) {
        /* Deaf: the request is never read, so never acknowledged. */
        const char *request = mutant == LIFECYCLE_DEAF ? 0 : pv_machine_ops.lifecycle_request();

        if (!request) {
            sleep_until(time_now_ns() + POLL_NS);
        } else if (strcmp(request, "suspend") == 0) {
            suspend_once();
        } else if (strcmp(request, "poweroff") == 0 || strcmp(request, "reboot") == 0) {
            /* A reboot would boot the image afresh: the run ends either way. */
            kprintf("lifecycle: the toolstack asks for %s after %u of %lu resumes\n", request,
                    resumes, resumes_wanted);
            kernel_exit(EXIT_FAILURE, "lifecycle: ended by the toolstack before every resume");
        } else {
            kprintf("lifecycle: unknown request \"%s\" ignored\n", request);
        }
    }
}

/* Whether resumes are still awaited (and the time is not up): the
 * workloads go on meanwhile. */
static bool lifecycle_waiting(void)
{
    return resumes < resumes_wanted && time_now_ns() < deadline_ns;
}

void lifecycle_start(void)
{
    const char *err;

    if (resumes_wanted == 0)
        return;
    err = pv_machine_ops.lifecycle_start();
    if (err) {
        kprintf("lifecycle: %s\n", err);
        kernel_exit(EXIT_CMDLINE, "cmdline: lifecycle= needs a toolstack that can save this "
                                  "domain, a Xen domU's");
    }
    domains[0] = pv_machine_ops.domain_id();
    deadline_ns = time_now_ns() + timeout_s * NSEC_PER_SEC;
    workload_add_hold(lifecycle_waiting);
    for (unsigned cpu = 0; cpu < smp_cpus_online(); cpu++) {
        counters[cpu].last_ns = time_now_ns();
        counters[cpu].thread = thread_create_on(cpu, "counter", count, &counters[cpu]);
        if (!counters[cpu].thread)
            panic("lifecycle: no thread slot for CPU %u's counter", cpu);
    }
    answerer = thread_create_on(0, "lifecycle", answer, 0);
    if (!answerer)
        panic("lifecycle: no thread slot for the thread that answers the toolstack");
    kprintf("lifecycle: watching control/shutdown for %lu resumes in domain %u\n", resumes_wanted,
            domains[0]);
}

void lifecycle_finish(void)
{
    char line[16 * (MAX_RESUMES + 1) < 4096 ? 16 * (MAX_RESUMES + 1) : 4096];
    size_t len = 0;

    if (resumes_wanted == 0)
        return;
    while (lifecycle_waiting())
        sleep_until(time_now_ns() + POLL_NS);
    __atomic_store_n(&finished, true, __ATOMIC_RELEASE);
    thread_join(answerer);
    for (unsigned cpu = 0; cpu < smp_cpus_online(); cpu++)
        thread_join(counters[cpu].thread);
    if (resumes < resumes_wanted) {
        kprintf("lifecycle: %u of %lu resumes within %lu s\n", resumes, resumes_wanted, timeout_s);
        kernel_exit(EXIT_FAILURE, "lifecycle: the toolstack did not move the domain enough");
    }
    for (unsigned i = 0; i <= resumes && len + 12 < sizeof(line); i++)
        len += (size_t)ksnprintf(line + len, sizeof(line) - len, " %u", domains[i]);
    kprintf("lifecycle: resumed %u times, domains%s\n", resumes, line);
}
