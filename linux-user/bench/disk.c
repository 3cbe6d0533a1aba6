/* The disk as Linux's own frontends see it, on the doors patchbay's
 * transports use: natively Linux's virtio-blk on /dev/vda (the initramfs
 * holds the virtio modules and disk.order, tools/run --linux --disk), in a
 * domU Linux's blkfront on /dev/xvda against the same blkback (the
 * initramfs holds xen-blkfront.ko, tools/run --linux --domu --disk). The
 * program loads them, waits for the disk and reads its first 4 KiB with
 * O_DIRECT; then the same 4 KiB reads and writes as patchbay's disk
 * benchmarks (drivers/block_bench.c), and its 64 KiB reads, O_DIRECT so each
 * goes to the device and not a page cache: at depth 1 one thread's
 * pread/pwrite, at depth 32 32 threads' each (no libaio: one request in
 * flight per thread). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/loop.h"
#include "linux-user/bench/linux_bench.h"

#define BLKFRONT_KO "/xen-blkfront.ko"
#define VIRTIO_ORDER "/disk.order"
#define DISK_WAIT_MS 10000
#define BLOCK 4096
#define BYTES_MAX (64 << 10) /* the largest request */
#define SPAN (1 << 20)       /* bytes cycled over: the first MiB, as patchbay's */
#define DEPTH_MAX 32

static int probe_errno; /* errno at the step that failed */
static const char *disk_name, *transport;
static int disk_fd = -1;

/* why, with errno kept for the line that says it. */
static const char *failed_at(const char *why)
{
    probe_errno = errno;
    return why;
}

/* Sectors of 512 bytes in /sys/block/NAME/size, or 0 while there is none. */
static unsigned long long disk_sectors(void)
{
    char path[64];
    unsigned long long n = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/sys/block/%s/size", disk_name);
    f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &n) != 1)
            n = 0;
        fclose(f);
    }
    return n;
}

/* The virtio stack, in disk.order's order. */
static const char *load_virtio(void)
{
    int r = modules_load_order(VIRTIO_ORDER);

    return r < 0 ? failed_at("cannot read " VIRTIO_ORDER)
           : r   ? failed_at("cannot load a virtio module")
                 : 0;
}

static const char *probe(unsigned long long *sectors)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    char dev[32];
    void *buf;
    ssize_t got;
    const char *why = strcmp(disk_name, "vda") == 0 ? load_virtio()
                      : module_load(BLKFRONT_KO)    ? 0
                                                    : failed_at("cannot load xen-blkfront.ko");

    if (why)
        return why;
    for (int ms = 0; !(*sectors = disk_sectors()); ms += 10) {
        if (ms >= DISK_WAIT_MS)
            return failed_at("no disk within 10 s of loading its driver");
        nanosleep(&tick, 0);
    }
    snprintf(dev, sizeof(dev), "/dev/%s", disk_name);
    disk_fd = open(dev, O_RDWR | O_DIRECT | O_CLOEXEC);
    if (disk_fd < 0 && (errno == EROFS || errno == EACCES)) /* a read-only disk: reads only */
        disk_fd = open(dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (disk_fd < 0)
        return failed_at("cannot open the disk");
    if (posix_memalign(&buf, BLOCK, BLOCK) != 0)
        return failed_at("no memory for the read");
    got = pread(disk_fd, buf, BLOCK, 0);
    probe_errno = errno;
    free(buf);
    return got == BLOCK ? 0 : "an O_DIRECT read of the disk's first 4 KiB failed";
}

int disk_probe(void)
{
    unsigned long long sectors = 0;
    const char *why;

    if (access(VIRTIO_ORDER, R_OK) == 0)
        disk_name = "vda", transport = "virtio-blk";
    else if (access(BLKFRONT_KO, R_OK) == 0)
        disk_name = "xvda", transport = "xen-blkfront";
    else
        return 0;
    why = probe(&sectors);
    if (why) {
        printf("linux-bench: disk: %s (%s)\n", why, strerror(probe_errno));
        disk_fd = -1;
        return 1;
    }
    printf("linux-bench: disk %s (%s): %llu sectors of 512 bytes, first 4 KiB read "
           "with O_DIRECT\n",
           disk_name, transport, sectors);
    return 0;
}

int disk_found(void)
{
    return disk_fd >= 0;
}

/* What the runs of one benchmark share: the op, the blocks handed out,
 * the failures, and for its detail line the requests, the time, the CPU
 * time Linux's tasks took (schedstat) and the clock's ns. */
static struct {
    int write, depth, bytes;
    uint64_t left, next, errors, ops, ticks, busy_ns, ns;
    pthread_mutex_t lock;
    void *buf[DEPTH_MAX];
} io = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The ns CPU 0's tasks have run (its /proc/schedstat rq_cpu_time): the
 * idle task is not counted, nor interrupts taken while idle. */
static uint64_t busy_ns(void)
{
    char line[256];
    unsigned long long v[7] = {0};
    FILE *f = fopen("/proc/schedstat", "r");

    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "cpu0 ", 5) == 0)
            sscanf(line + 5, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6]);
    if (f)
        fclose(f);
    return v[6];
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One thread: one request in flight until none are left. */
static void *worker(void *arg)
{
    void *buf = arg;

    for (;;) {
        uint64_t block;
        ssize_t got;

        pthread_mutex_lock(&io.lock);
        if (!io.left) {
            pthread_mutex_unlock(&io.lock);
            return 0;
        }
        io.left--;
        block = io.next++ % (SPAN / io.bytes);
        pthread_mutex_unlock(&io.lock);
        got = io.write ? pwrite(disk_fd, buf, io.bytes, (off_t)(block * io.bytes))
                       : pread(disk_fd, buf, io.bytes, (off_t)(block * io.bytes));
        if (got != io.bytes) {
            pthread_mutex_lock(&io.lock);
            io.errors++;
            pthread_mutex_unlock(&io.lock);
        }
    }
}

static uint64_t io_run(uint64_t n)
{
    pthread_t t[DEPTH_MAX];
    uint64_t b0 = busy_ns(), ns0 = now_ns(), t0 = bench_cycles(), ticks;
    int started = 0;

    io.left = n;
    for (int i = 1; i < io.depth; i++)
        started += pthread_create(&t[started], 0, worker, io.buf[i]) == 0;
    worker(io.buf[0]);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], 0);
    ticks = bench_cycles() - t0;
    io.ns += now_ns() - ns0;
    io.busy_ns += busy_ns() - b0;
    io.ticks += ticks;
    io.ops += n;
    return ticks;
}

static const char *io_prepare(int write, int depth, int bytes)
{
    if (disk_fd < 0)
        return "no disk";
    for (int i = 0; i < DEPTH_MAX; i++)
        if (!io.buf[i] && posix_memalign(&io.buf[i], BLOCK, BYTES_MAX) != 0)
            return "no memory for the buffers";
    io.write = write, io.depth = depth, io.bytes = bytes;
    io.next = io.errors = io.ops = io.ticks = io.busy_ns = io.ns = 0;
    return 0;
}

/* The detail line: Linux's CPU time a request in TSC ticks (its tasks'
 * time, the system call path included, scaled by the TSC's rate against
 * the clock), and requests per second by the clock. */
static const char *io_check(const char *name)
{
    uint64_t cpu = io.ops && io.ns ? (uint64_t)((double)io.busy_ns * io.ticks / io.ns / io.ops) : 0;

    if (io.errors)
        return "a request failed";
    printf("bench: detail=%s transport=%s bytes=%d requests=%llu cpu=%llu rps=%llu\n", name,
           transport, io.bytes, (unsigned long long)io.ops, (unsigned long long)cpu,
           (unsigned long long)(io.ns ? io.ops * 1000000000u / io.ns : 0));
    return 0;
}

#define DISK_BENCH(id_, write_, depth_, bytes_)                                                    \
    static const char *id_##_prepare(void)                                                         \
    {                                                                                              \
        return io_prepare(write_, depth_, bytes_);                                                 \
    }                                                                                              \
    static const char *id_##_check(void)                                                           \
    {                                                                                              \
        return io_check(#id_);                                                                     \
    }

DISK_BENCH(disk_read64k_qd1, 0, 1, BYTES_MAX)
DISK_BENCH(disk_read64k_qd32, 0, 32, BYTES_MAX)
DISK_BENCH(disk_read_qd1, 0, 1, BLOCK)
DISK_BENCH(disk_read_qd32, 0, 32, BLOCK)
DISK_BENCH(disk_write_qd1, 1, 1, BLOCK)
DISK_BENCH(disk_write_qd32, 1, 32, BLOCK)

/* In patchbay's order (bench/order.c sorts by name). */
const struct linux_bench disk_benches[] = {
    {"disk_read64k_qd1", 256, false, disk_read64k_qd1_prepare, io_run, disk_read64k_qd1_check},
    {"disk_read64k_qd32", 256, false, disk_read64k_qd32_prepare, io_run, disk_read64k_qd32_check},
    {"disk_read_qd1", 256, false, disk_read_qd1_prepare, io_run, disk_read_qd1_check},
    {"disk_read_qd32", 256, false, disk_read_qd32_prepare, io_run, disk_read_qd32_check},
    {"disk_write_qd1", 256, false, disk_write_qd1_prepare, io_run, disk_write_qd1_check},
    {"disk_write_qd32", 256, false, disk_write_qd32_prepare, io_run, disk_write_qd32_check},
};
const unsigned disk_bench_count = sizeof(disk_benches) / sizeof(disk_benches[0]);
