/* The benchmark program's main: /init of the initramfs tools/run --linux
 * boots on Debian's kernel, natively, as Xen's dom0 or as a domU. It
 * mounts what it reads, runs each benchmark as bench/runner.c does (a
 * warm-up, then repetitions, the minimum and median per op with the empty
 * loop's cost taken off), prints patchbay's result lines, and ends the
 * machine with its verdict: as PID 1 through QEMU's isa-debug-exit port,
 * or as a domU's by powering the domain off (its dom0 reads the verdict),
 * else (run by hand on a host) by exiting. Natively it may be KVM's guest
 * (tools/run --linux --kvm): its config then says so.
 *
 * Arguments (after the kernel's "--"): tsc.icount (the TSC counts
 * instructions: say so), bench.quick (few iterations and repetitions, for
 * make test), bench.reps=N, bench.domu (a domU: no exit port to reach),
 * bench.disk (the disk benchmarks only: a boot with a disk, whose config
 * is tagged +disk as patchbay's is), bench.net (serve the network's
 * client only, net.c; the doors' net=on says the same, config +net) with
 * net.ip= and net.timeout= as the doors pass them to patchbay. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "linux-user/bench/linux_bench.h"
#include "bench/loop.h"
#include "bench/stats.h"

#define DEBUG_EXIT_PORT 0xf4 /* tools/pbtools/run/common.py's: QEMU ends with (value << 1) | 1 */
#define REPS_MAX 64
#define LOOP_ITERS 100000

static unsigned reps = 15;
static int quick;
static int domu;
static int disk_only;
static int net_only;
static const char *unit = "tsc_ticks";
static char config[64];

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "tsc.icount") == 0)
            unit = "instructions";
        else if (strcmp(argv[i], "bench.quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "bench.domu") == 0)
            domu = 1;
        else if (strcmp(argv[i], "bench.disk") == 0)
            disk_only = 1;
        else if (strcmp(argv[i], "bench.net") == 0 || strcmp(argv[i], "net=on") == 0)
            net_only = 1;
        else if (net_arg(argv[i]))
            continue;
        else if (strncmp(argv[i], "bench.reps=", 11) == 0 && atoi(argv[i] + 11) >= 1 &&
                 atoi(argv[i] + 11) <= REPS_MAX)
            reps = (unsigned)atoi(argv[i] + 11);
        else
            printf("linux-bench: unknown argument '%s', ignored\n", argv[i]);
    }
    if (quick && reps > 3)
        reps = 3;
}

/* One byte to an I/O port, which the kernel writes (CONFIG_DEVPORT). */
static void write_port(off_t port, unsigned char value)
{
    int fd = open("/dev/port", O_WRONLY | O_CLOEXEC);

    if (fd >= 0) {
        if (pwrite(fd, &value, 1, port) != 1)
            printf("linux-bench: /dev/port: %s\n", strerror(errno));
        close(fd);
    }
}

/* Ends the run with the verdict, PASS without a reason: QEMU exits with
 * status 0, or 1 on a FAIL, when this is PID 1 on a machine with the
 * exit port. The byte goes through /dev/port, so the kernel's own out
 * does it: a user-mode outl after iopl(3) faulted in an L2 guest of
 * nested SVM under TCG, and a PV dom0's kernel has the port from Xen. A
 * domU has no port of QEMU's (Xen grants it none): it powers off, and its
 * dom0 takes the status from the verdict line. */
static void finish_with(const char *reason)
{
    int status = reason ? 1 : 0;

    if (reason)
        printf("patchbay: FAIL %s\n", reason);
    else
        printf("patchbay: PASS\n");
    fflush(stdout);
    if (getpid() == 1) {
        if (domu)
            reboot(RB_POWER_OFF);
        else
            write_port(DEBUG_EXIT_PORT, (unsigned char)status);
        printf("linux-bench: cannot reach QEMU's exit port: %s\n", strerror(errno));
        fflush(stdout);
        for (;;)
            pause(); /* PID 1 must not exit: the kernel would panic */
    }
    exit(status);
}

static void finish(int failed)
{
    char reason[48];

    snprintf(reason, sizeof(reason), "%d benchmark%s failed", failed, failed == 1 ? "" : "s");
    finish_with(failed ? reason : 0);
}

/* As PID 1: the filesystems the benchmarks read, and one CPU for all
 * threads, so two yielding threads switch to each other. */
static void set_up(void)
{
    cpu_set_t one;

    if (getpid() == 1) {
        mkdir("/proc", 0555);
        mkdir("/sys", 0555);
        mount("proc", "/proc", "proc", 0, 0);
        mount("sysfs", "/sys", "sysfs", 0, 0);
        mkdir("/dev", 0755);
        mount("devtmpfs", "/dev", "devtmpfs", 0, 0);
        mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, 0);
    }
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof(one), &one);
}

/* The first line of a sysfs file, or "" if it cannot be read. */
static void read_sysfs(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");

    buf[0] = 0;
    if (f) {
        if (!fgets(buf, (int)size, f))
            buf[0] = 0;
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = 0;
}

/* KVM's CPUID signature, at the first hypervisor leaf as KVM's ABI puts it. */
static int under_kvm(void)
{
    unsigned int eax, sig[3];

    __cpuid(1, eax, sig[0], sig[1], sig[2]);
    if (!(sig[1] & 1u << 31)) /* CPUID.1:ECX[31], a hypervisor is present */
        return 0;
    __cpuid(0x40000000, eax, sig[0], sig[1], sig[2]);
    return memcmp(sig, "KVMKVMKVM\0\0\0", sizeof(sig)) == 0;
}

/* "linux-native", "linux-xen" or "linux-kvm", from what the kernel says
 * it runs on (KVM: its CPUID leaves); when told it is a domU,
 * "linux-domu", or "linux-domu-pvh" when Linux says it was started as a
 * PVH guest (the door's two domU kinds). */
static void find_config(void)
{
    char type[16], guest[16];

    read_sysfs("/sys/hypervisor/type", type, sizeof(type));
    read_sysfs("/sys/hypervisor/guest_type", guest, sizeof(guest));
    snprintf(config, sizeof(config), "linux-%s%s",
             domu                       ? (strcmp(guest, "PVH") == 0 ? "domu-pvh" : "domu")
             : strcmp(type, "xen") == 0 ? "xen"
             : under_kvm()              ? "kvm"
                                        : "native",
             disk_only  ? "+disk"
             : net_only ? "+net"
                        : "");
}

static uint64_t iters_for(uint64_t iters)
{
    return quick ? (iters / 50 ? iters / 50 : 1) : iters;
}

static void print_result(const char *name, uint64_t n, struct bench_summary s)
{
    printf(BENCH_RESULT_FORMAT, BENCH_RESULT_ARGS(name, config, n, reps, s, unit));
    fflush(stdout);
}

static uint64_t empty_loop(uint64_t n)
{
    return BENCH_TIME_LOOP(n, );
}

static uint64_t loop_overhead(void)
{
    uint64_t samples[REPS_MAX], n = iters_for(LOOP_ITERS);
    struct bench_summary s = bench_repeat(empty_loop, n, samples, reps, 0);

    print_result("loop_overhead", n, s);
    return s.min;
}

/* Returns 0, or 1 when the benchmark failed (and says why). */
static int run_one(const struct linux_bench *b, uint64_t overhead)
{
    uint64_t samples[REPS_MAX], n = iters_for(b->iters);
    const char *why = b->prepare ? b->prepare() : 0;
    struct bench_summary s;

    if (!why) {
        s = bench_repeat(b->measure, n, samples, reps, b->subtract_loop ? overhead : 0);
        why = b->check ? b->check() : 0;
    }
    if (why) {
        printf(BENCH_FAILED_FORMAT, b->name, config, why);
        return 1;
    }
    print_result(b->name, n, s);
    return 0;
}

int main(int argc, char **argv)
{
    struct utsname u;
    uint64_t overhead;
    int failed = 0;

    setvbuf(stdout, 0, _IOLBF, 0);
    parse_args(argc, argv);
    set_up();
    find_config();
    uname(&u);
    printf("linux-bench: release=%s version=\"%s\" config=%s reps=%u quick=%s\n", u.release,
           u.version, config, reps, quick ? "yes" : "no");
    if (net_only)
        finish_with(net_run());
    failed += disk_probe();
    if (disk_only) {
        if (!disk_found())
            printf("linux-bench: bench.disk but no disk (tools/run --linux --disk FILE)\n");
        for (unsigned i = 0; i < disk_bench_count; i++)
            failed += disk_found() ? run_one(&disk_benches[i], 0) : 1;
        finish(failed);
    }
    overhead = loop_overhead();
    for (unsigned i = 0; i < mm_bench_count; i++)
        failed += run_one(&mm_benches[i], overhead);
    for (unsigned i = 0; i < sched_bench_count; i++)
        failed += run_one(&sched_benches[i], overhead);
    xen_trace_mprotect(strcmp(config, "linux-xen") == 0);
    finish(failed);
}
