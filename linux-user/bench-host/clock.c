/* What the figures were measured on and with: the CPU's brand, the
 * hypervisor under it if any, whether its TSC is invariant, the TSC's
 * rate against Linux's raw monotonic clock, and whether Linux offers a
 * hardware cycle counter, which the figures would otherwise be read from.
 * The clock itself is the kernel benchmarks' (bench/loop.h). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/loop.h"
#include "linux-user/bench-host/bench_host.h"

#define RATE_SAMPLE_NS 50000000ull

static void cpu_brand(char out[49])
{
    unsigned regs[12] = {0}, max = __get_cpuid_max(0x80000000, NULL);
    char *p = out;

    strcpy(out, "unknown");
    if (max < 0x80000004)
        return;
    for (unsigned i = 0; i < 3; i++)
        __cpuid(0x80000002 + i, regs[4 * i], regs[4 * i + 1], regs[4 * i + 2], regs[4 * i + 3]);
    memcpy(out, regs, 48);
    out[48] = '\0';
    while (*p == ' ')
        p++;
    memmove(out, p, strlen(p) + 1);
    for (size_t n = strlen(out); n > 0 && out[n - 1] == ' '; n--)
        out[n - 1] = '\0';
}

/* CPUID.1:ECX[31] says a hypervisor is present; its leaf 0x40000000
 * names it in EBX, ECX, EDX (the convention Xen, KVM and Hyper-V share). */
static void hypervisor(char out[13])
{
    unsigned a, b, c, d;

    strcpy(out, "none");
    __cpuid(1, a, b, c, d);
    if (!(c & (1u << 31)))
        return;
    __cpuid(0x40000000, a, b, c, d);
    memcpy(out, &b, 4);
    memcpy(out + 4, &c, 4);
    memcpy(out + 8, &d, 4);
    out[12] = '\0';
}

/* CPUID 0x80000007 EDX[8]: the TSC runs at a constant rate in every
 * P-, C- and T-state (Intel SDM vol. 3B, "Invariant TSC"; AMD's TscInvariant). */
static bool invariant_tsc(void)
{
    unsigned a, b, c, d;

    if (__get_cpuid_max(0x80000000, NULL) < 0x80000007)
        return false;
    __cpuid(0x80000007, a, b, c, d);
    return d & (1u << 8);
}

static uint64_t raw_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Ticks per microsecond over a short spin. */
static double tsc_mhz(void)
{
    uint64_t ns0 = raw_ns(), t0 = bench_cycles(), ns1, t1;

    do {
        ns1 = raw_ns();
        t1 = bench_cycles();
    } while (ns1 - ns0 < RATE_SAMPLE_NS);
    return (double)(t1 - t0) * 1000.0 / (double)(ns1 - ns0);
}

/* "yes", or why perf_event_open gives no cycle counter. */
static const char *cycle_counter(void)
{
    static char why[96];
    struct perf_event_attr attr = {.type = PERF_TYPE_HARDWARE,
                                   .size = sizeof(attr),
                                   .config = PERF_COUNT_HW_CPU_CYCLES,
                                   .exclude_kernel = 1,
                                   .exclude_hv = 1};
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

    if (fd < 0) {
        snprintf(why, sizeof(why), "none: perf_event_open: %s", strerror(errno));
        return why;
    }
    close((int)fd);
    return "yes";
}

static char heading[256];

void clock_describe(unsigned cpu, unsigned runs, unsigned reps, uint64_t iters)
{
    char brand[49], hv[13];
    double mhz = tsc_mhz();
    bool invariant = invariant_tsc();
    const char *counters = cycle_counter();

    cpu_brand(brand);
    hypervisor(hv);
    printf("host: cpu=\"%s\" hypervisor=\"%s\" invariant_tsc=%s tsc_mhz=%.1f counters=\"%s\" "
           "cpu_index=%u runs=%u reps=%u iters=%lu clock=\"lfence; rdtsc\" unit=tsc_ticks\n",
           brand, hv, invariant ? "yes" : "no", mhz, counters, cpu, runs, reps,
           (unsigned long)iters);
    snprintf(heading, sizeof(heading),
             "%s, hypervisor %s; TSC %.1f MHz, %sinvariant; hardware counters: %s; CPU %u, "
             "%u runs of %u repetitions",
             brand, hv, mhz, invariant ? "" : "not ", counters, cpu, runs, reps);
}

void clock_print_heading(void)
{
    printf("\n%s\n", heading);
}
