/* The stale-TLB test (mm.tlbtest=on): a write through a translation
 * another CPU has revoked must fault. A writer thread dirties a page,
 * so its CPU caches a writable translation; the tester, on another CPU,
 * makes the page read-only; the writer writes again. With the shootdown
 * that write faults. With mm.tlbtest=skip-shootdown it does not, and the
 * run ends naming the stale write: the control that shows the test can
 * see the bug it is there to catch. */
#include "kernel/main.h"

#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/tlb.h"
#include "mm/vm.h"

#define ROUNDS 16        /* rounds where the writer stayed on its CPU */
#define MAX_ATTEMPTS 256 /* a thread moved to another CPU makes a round not count */

enum tlb_test_mode { TLBTEST_OFF, TLBTEST_ON, TLBTEST_SKIP_SHOOTDOWN };
static const char *const mode_names[] = {"off", "on", "skip-shootdown", 0};
static int mode = TLBTEST_OFF;
OPTION_ENUM(mode, "mm.tlbtest", mode_names,
            "check a write through a revoked translation faults (skip-shootdown: must fail)");

/* The round's steps, in order; the writer and the tester each wait for
 * the other's. */
enum step { STEP_IDLE, STEP_CACHE, STEP_CACHED, STEP_PROTECTED, STEP_WRITTEN, STEP_QUIT };

static struct {
    volatile uint64_t *page;
    unsigned step;
    unsigned writer_cpu; /* where the first write cached the translation */
    bool stayed;         /* the second write ran on that CPU too */
    bool faulted;        /* the second write faulted */
} t;

static void set_step(enum step s)
{
    __atomic_store_n(&t.step, s, __ATOMIC_RELEASE);
}

/* Spins with interrupts as they are: natively the shootdown IPI must get
 * through to a CPU waiting here. */
static void wait_step(enum step s, const char *who)
{
    uint64_t end = time_now_ns() + SELFTEST_NEVER_NS;

    while (__atomic_load_n(&t.step, __ATOMIC_ACQUIRE) != s) {
        if (time_now_ns() > end)
            panic("mm: tlbtest: the %s waited over %lu s for step %d", who,
                  SELFTEST_NEVER_NS / NSEC_PER_SEC, s);
        __builtin_ia32_pause();
    }
}

/* The write fault: note it and give the write back its page. */
static bool on_write_fault(uint64_t addr, void *ctx)
{
    (void)ctx;
    t.faulted = true;
    return mprotect((void *)(addr & ~(PAGE_SIZE - 1)), PAGE_SIZE, VM_READ | VM_WRITE) == 0;
}

static void writer(void *arg)
{
    (void)arg;
    for (uint64_t round = 1;; round++) {
        while (__atomic_load_n(&t.step, __ATOMIC_ACQUIRE) == STEP_IDLE)
            __builtin_ia32_pause();
        if (__atomic_load_n(&t.step, __ATOMIC_ACQUIRE) == STEP_QUIT)
            thread_exit();
        *t.page = round; /* the TLB now holds the page writable and dirty */
        t.writer_cpu = cpu_index();
        set_step(STEP_CACHED);
        wait_step(STEP_PROTECTED, "writer");
        unsigned before = cpu_index();
        *t.page = round; /* must fault */
        t.stayed = before == t.writer_cpu && cpu_index() == before;
        set_step(STEP_WRITTEN);
        while (__atomic_load_n(&t.step, __ATOMIC_ACQUIRE) == STEP_WRITTEN)
            __builtin_ia32_pause();
    }
}

/* One round; true if it counts (both threads stayed on different CPUs). */
static bool run_round(void)
{
    t.faulted = false;
    set_step(STEP_CACHE);
    wait_step(STEP_CACHED, "tester");
    unsigned tester_cpu = cpu_index();
    if (mprotect((void *)t.page, PAGE_SIZE, VM_READ) != 0)
        panic("mm: tlbtest: mprotect read-only failed");
    bool apart = tester_cpu != t.writer_cpu && cpu_index() == tester_cpu;
    set_step(STEP_PROTECTED);
    wait_step(STEP_WRITTEN, "tester");
    set_step(STEP_IDLE);
    if (!apart || !t.stayed)
        return false;
    if (!t.faulted)
        panic("mm: tlbtest: cpu %u wrote page 0x%lx after cpu %u made it read-only: its TLB "
              "entry was stale",
              t.writer_cpu, (uint64_t)t.page, tester_cpu);
    return true;
}

void mm_tlb_test(void)
{
    unsigned counted = 0, attempts = 0;
    struct thread *w;

    if (mode == TLBTEST_OFF)
        return;
    if (smp_cpus_online() < 2) {
        kprintf("mm: tlbtest needs at least 2 CPUs running (tools/run --smp 2)\n");
        kernel_exit(EXIT_CMDLINE, "cmdline: mm.tlbtest= needs a second CPU");
    }
    tlb_skip_shootdowns(mode == TLBTEST_SKIP_SHOOTDOWN);
    t.page = vm_map(PAGE_SIZE, VM_READ | VM_WRITE, on_write_fault, NULL);
    if (!t.page || !(w = thread_create("tlbtest", writer, NULL)))
        panic("mm: tlbtest: cannot map its page or start its writer");
    for (; counted < ROUNDS && attempts < MAX_ATTEMPTS; attempts++)
        counted += run_round();
    set_step(STEP_QUIT);
    thread_join(w);
    tlb_skip_shootdowns(false);
    if (counted < ROUNDS)
        panic("mm: tlbtest: only %u of %u attempts kept the threads on their CPUs", counted,
              attempts);
    if (!vm_unmap((void *)t.page))
        panic("mm: tlbtest: cannot unmap its page");
    kprintf("mm: tlbtest: %u writes through a revoked translation, each on another CPU, all "
            "faulted (%u attempts)\n",
            counted, attempts);
}
