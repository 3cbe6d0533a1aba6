/* kernel_main: where every entry path meets, once its backend has
 * installed the ops tables and boot_info is filled. One bring-up step per
 * line. */
#include "bench/bench.h"
#include "kernel/boot_info.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/disk_workload.h"
#include "kernel/exit.h"
#include "kernel/fault_inject.h"
#include "kernel/lifecycle.h"
#include "kernel/main.h"
#include "kernel/net_workload.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/write_barrier.h"
#include "mm/kernel_map.h"
#include "mm/vm.h"
#include "pv/cpu.h"
#include "pv/ops.h"
#include "pv/patch.h"

#define OPTION_VERDICT_MAX 160

/* The first problem's line, up to its parenthesis (the accepted values,
 * the known keys), is the verdict's reason when it is the only one. */
static void report_option_error(const char *line, void *ctx)
{
    char *first = ctx;
    const char *paren = strchr(line, '(');
    int len = paren && paren > line ? (int)(paren - line) - 1 : (int)strlen(line);

    kprintf("%s\n", line);
    if (!first[0])
        ksnprintf(first, OPTION_VERDICT_MAX, "%.*s", len, line);
}

/* An option the run cannot honour ends it, with every problem listed: a
 * mistyped key, value or benchmark name, options at odds with each other,
 * one for another platform, or a line cut short would otherwise pass as
 * some other experiment. */
static void options_init(const struct boot_info *bi)
{
    static char shown[4 * BOOT_CMDLINE_MAX], first[OPTION_VERDICT_MAX], cut[OPTION_VERDICT_MAX];
    int problems = 0;

    cmdline_escape(shown, sizeof(shown), bi->cmdline, strlen(bi->cmdline));
    kprintf("cmdline: \"%s\"%s\n", shown, bi->cmdline_truncated ? " (truncated)" : "");
    if (bi->cmdline_truncated) {
        ksnprintf(cut, sizeof(cut),
                  "cmdline: the line fills the %d bytes read: anything past them is lost",
                  BOOT_CMDLINE_MAX - 1);
        report_option_error(cut, first);
        problems++;
    }
    problems +=
        cmdline_parse(bi->cmdline, __start_options, (size_t)(__stop_options - __start_options),
                      pv_info.caps, report_option_error, first);
    problems +=
        cmdline_check(__start_option_checks, (size_t)(__stop_option_checks - __start_option_checks),
                      report_option_error, first);
    if (problems == 1)
        kernel_exit(EXIT_CMDLINE, first);
    if (problems > 1) {
        ksnprintf(first, sizeof(first), "cmdline: %d problems, each above", problems);
        kernel_exit(EXIT_CMDLINE, first);
    }
}

/* The processor brand string (CPUID 0x80000002..4), as this platform shows it. */
static void print_cpu(void)
{
    char brand[49] = "";
    const char *p = brand;

    if (cpu_id(0x80000000, 0).eax >= 0x80000004) {
        for (uint32_t i = 0; i < 3; i++) {
            struct cpuid_result r = cpu_id(0x80000002 + i, 0);
            memcpy(brand + 16 * i, &r, 16);
        }
        brand[48] = '\0';
    }
    while (*p == ' ')
        p++;
    kprintf("cpu: %s\n", *p ? p : "(no brand string)");
}

static void check_wx(void)
{
    uint64_t wx = kernel_map_count_wx();

    kprintf("mm: W^X check: %lu pages writable and executable\n", wx);
    if (wx != 0)
        panic("W^X violated: %lu pages are writable and executable", wx);
}

/* bench=...: each benchmark prints its own line, a failed check included. */
static void run_benchmarks(void)
{
    if (bench_run_selected() > 0)
        kernel_exit(EXIT_FAILURE, "bench: a benchmark failed its check");
}

void kernel_main(void)
{
    stack_canaries_init(); /* a canary above every stack's guard page */
    kprintf("patchbay: booting via %s\n", boot_method_name(boot_info.method));
    print_cpu();                               /* which CPU, as this platform shows it */
    options_init(&boot_info);                  /* typed options from the command line */
    spin_lock_setup();                         /* pv.spinlock: the backend's lock, or inline */
    pv_machine_ops.setup();                    /* the backend acts on its options */
    pv_patch_all(pv_patch_ops.site_backend()); /* rewrite call sites for this backend */
    mm_init(&boot_info);                       /* frame allocator over the memory map */
    kernel_map_init(&boot_info);               /* W^X page tables, guard pages */
    check_wx();                                /* walk them: nothing is both W and X */
    vm_init();                                 /* memory areas; #PF goes to their handlers */
    selftest_time();                           /* clock, one-shot timer, irq delivery */
    sched_init();                              /* this thread joins the run queue; ticks start */
    smp_start_cpus();                          /* the other CPUs, each on its idle thread */
    selftest_sched();                          /* threads, preemption, channel, sleep */
    pv_machine_ops.selftest();                 /* the backend's own: Xen's event delivery */
    mm_dirty_test();                           /* mm.dirtytest=1: D survives mprotect */
    mm_tlb_test();                             /* mm.tlbtest=on: no stale TLB entry survives */
    pv_repatch_test();                         /* pv.repatch_test=N: patching with CPUs live */
    lifecycle_start();                         /* lifecycle=N: the toolstack may move us */
    fault_inject_arm();                        /* fault=wl-*: the workload's hook */
    write_barrier_run();                       /* wl=on: the mprotect-heavy workload */
    disk_workload_run();                       /* disk=on: write, read back, flush */
    net_workload_run();                        /* net=on: serve the client until its end */
    lifecycle_finish();                        /* every resume came, each checked */
    fault_inject_run();                        /* fault=...: test the trap path */
    check_wx();                                /* still W^X after every text_poke */
    run_benchmarks();                          /* bench=...: measure, then end the run */
    kernel_exit(EXIT_CLEAN, "");
}
