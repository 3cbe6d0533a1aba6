/* disk=on: the block layer's workload, which checks itself and leaves on
 * the disk what the host checks after the run. Each pass writes every
 * block with the pass's generation, reads each back and checks it, then
 * flushes and says so on the console: only a completed flush makes the
 * host's check of those blocks fair. The first disk.depth requests go
 * out together, and each completion sends the next, so the device holds
 * disk.depth at a time; each request carries disk.request bytes, whole
 * blocks in a row. */
#include "kernel/disk_workload.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/loop.h"
#include "drivers/block.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/disk_pattern.h"
#include "kernel/exit.h"
#include "kernel/printf.h"
#include "kernel/spinlock.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "kernel/wait_queue.h"
#include "kernel/workload.h"
#include "mm/frame_alloc.h"
#include "mm/pgtable.h"

#define DISK_MAX_DEPTH 128
#define DISK_MAX_REQUEST (256u << 10)
#define SECTORS_PER_BLOCK (DISK_BLOCK_SIZE / BLOCK_SECTOR_SIZE)

static const char *const disk_choices[] = {"off", "on", 0};
static int disk_choice;
OPTION_ENUM(disk_choice, "disk", disk_choices,
            "run the disk workload after the self-tests (tools/run --disk FILE)");
static uint64_t disk_blocks = 256;
OPTION_UINT(disk_blocks, "disk.blocks", 1, 1u << 24, "4 KiB blocks the disk workload writes");
static uint64_t disk_depth = 8;
OPTION_UINT(disk_depth, "disk.depth", 1, DISK_MAX_DEPTH, "requests in flight at once");
static uint64_t disk_request = DISK_BLOCK_SIZE;
OPTION_SIZE(disk_request, "disk.request", DISK_BLOCK_SIZE, DISK_MAX_REQUEST,
            "bytes per request, whole 4 KiB blocks (at most what the device takes in one)");
static uint64_t disk_seed = 1;
OPTION_UINT(disk_seed, "disk.seed", 0, UINT64_MAX, "seed of the disk workload's pattern");
static uint64_t disk_passes = 1;
OPTION_UINT(disk_passes, "disk.passes", 1, 1000000,
            "passes over the blocks, each a new generation");
/* A negative control for the host's check: the flush is left out, and
 * the flushed-blocks line printed all the same. */
static const char *const mutant_choices[] = {"none", "no-flush", 0};
static int disk_mutant;
OPTION_ENUM(disk_mutant, "disk.mutant", mutant_choices,
            "break the workload on purpose, to show the host's check catches it");

/* The requests in flight and the slots whose request has completed. */
static struct {
    struct block_request r[DISK_MAX_DEPTH];
    uint8_t *buf[DISK_MAX_DEPTH];
    unsigned completed[DISK_MAX_DEPTH], nr_completed;
    uint64_t per_request; /* blocks */
    struct spinlock lock;
    struct wait_queue wq;
} io;

static void on_done(struct block_request *r)
{
    unsigned long flags = spin_lock_irqsave(&io.lock);

    io.completed[io.nr_completed++] = (unsigned)(r - io.r);
    wait_queue_wake_one(&io.wq);
    spin_unlock_irqrestore(&io.lock, flags);
}

/* One line, the verdict's reason: the run ends here. */
static __attribute__((noreturn, format(printf, 1, 2))) void disk_fail(const char *fmt, ...)
{
    char reason[160];
    va_list ap;

    va_start(ap, fmt);
    kvsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    kernel_exit(EXIT_FAILURE, reason);
}

/* Blocks block.. of one request, as many as it carries and are left. */
static void issue(struct block_device *d, unsigned slot, enum block_op op, uint64_t block,
                  uint64_t generation)
{
    struct block_request *r = &io.r[slot];
    uint64_t n = disk_blocks - block < io.per_request ? disk_blocks - block : io.per_request;
    enum block_status s;

    /* A read's buffer is poisoned first: a read the device never carried
     * out must not find the last write of the same block still there. */
    if (op == BLOCK_WRITE)
        for (uint64_t i = 0; i < n; i++)
            disk_pattern_fill(io.buf[slot] + i * DISK_BLOCK_SIZE, block + i, generation, disk_seed);
    else
        memset(io.buf[slot], 0xa5, n * DISK_BLOCK_SIZE);
    *r = (struct block_request){.op = op,
                                .sector = block * SECTORS_PER_BLOCK,
                                .buf = io.buf[slot],
                                .len = (uint32_t)(n * DISK_BLOCK_SIZE),
                                .done = on_done,
                                .data = (void *)(uintptr_t)block};
    s = block_submit(d, r);
    if (s != BLOCK_PENDING)
        disk_fail("disk: a request for block %lu was refused: %s", block, block_status_name(s));
}

/* The request in slot has completed: it must have succeeded, and a read
 * must hold what this generation wrote; returns the blocks it carried. */
static uint64_t finish(unsigned slot, uint64_t generation)
{
    struct block_request *r = &io.r[slot];
    uint64_t block = (uint64_t)(uintptr_t)r->data, n = r->len / DISK_BLOCK_SIZE;

    if (r->status != BLOCK_OK)
        disk_fail("disk: the %s of block %lu failed: %s", r->op == BLOCK_WRITE ? "write" : "read",
                  block, block_status_name(r->status));
    for (uint64_t i = 0; i < n && r->op == BLOCK_READ; i++) {
        enum disk_block_fault f = disk_pattern_check(io.buf[slot] + i * DISK_BLOCK_SIZE, block + i,
                                                     generation, disk_seed);
        if (f != DISK_BLOCK_OK)
            disk_fail("disk: block %lu read back wrong: %s", block + i, disk_block_fault_name(f));
    }
    return n;
}

/* Every block once, disk.depth requests at a time. */
static void run_phase(struct block_device *d, enum block_op op, uint64_t generation)
{
    uint64_t next = 0, finished = 0;
    uint64_t requests = (disk_blocks + io.per_request - 1) / io.per_request;
    unsigned depth = disk_depth < requests ? disk_depth : requests;

    io.nr_completed = 0;
    block_plug(d);
    for (unsigned slot = 0; slot < depth; slot++, next += io.per_request)
        issue(d, slot, op, next, generation);
    block_unplug(d);
    while (finished < disk_blocks) {
        unsigned batch[DISK_MAX_DEPTH], n;
        unsigned long flags = spin_lock_irqsave(&io.lock);

        while (io.nr_completed == 0)
            wait_queue_sleep(&io.wq, &io.lock);
        n = io.nr_completed;
        for (unsigned i = 0; i < n; i++)
            batch[i] = io.completed[i];
        io.nr_completed = 0;
        spin_unlock_irqrestore(&io.lock, flags);
        block_plug(d); /* the refills go out with one kick */
        for (unsigned i = 0; i < n; i++) {
            finished += finish(batch[i], generation);
            if (next < disk_blocks) {
                issue(d, batch[i], op, next, generation);
                next += io.per_request;
            }
        }
        block_unplug(d);
    }
}

static void flush(struct block_device *d, uint64_t generation)
{
    enum block_status s = BLOCK_OK;

    if (disk_mutant != 1)
        s = block_io(d, BLOCK_FLUSH, 0, 0, 0);
    if (s != BLOCK_OK)
        disk_fail("disk: the flush after generation %lu failed: %s", generation,
                  block_status_name(s));
    kprintf(DISK_FLUSHED_FORMAT "\n", 0UL, disk_blocks - 1, generation, disk_seed);
}

/* What a run asks of the device, checked before anything is written. */
static struct block_device *usable_disk(void)
{
    struct block_device *d = block_first();
    uint64_t have;

    if (!d)
        kernel_exit(EXIT_FAILURE, "disk=on but no block device: start with --disk FILE");
    if (d->read_only)
        disk_fail("disk: %s is read-only, and disk=on writes: attach it writable", d->name);
    have = d->sectors / SECTORS_PER_BLOCK;
    if (have < disk_blocks)
        disk_fail("disk: %s holds %lu blocks of 4 KiB, fewer than disk.blocks=%lu", d->name, have,
                  disk_blocks);
    if (disk_request % DISK_BLOCK_SIZE)
        disk_fail("disk: disk.request=%lu is not a whole number of 4 KiB blocks", disk_request);
    io.per_request = disk_request / DISK_BLOCK_SIZE;
    if (d->max_request < DISK_BLOCK_SIZE)
        disk_fail("disk: %s takes requests of %u bytes at most, less than a block", d->name,
                  d->max_request);
    if (disk_request > d->max_request) {
        io.per_request = d->max_request / DISK_BLOCK_SIZE;
        kprintf("disk: %s takes at most %u KiB a request: requests of %lu KiB, not "
                "disk.request=%lu KiB\n",
                d->name, d->max_request >> 10, io.per_request * 4, disk_request >> 10);
    }
    /* A buffer in a row of frames: virtio-blk hands the device addresses. */
    for (unsigned i = 0; i < disk_depth; i++) {
        uint64_t pa = frame_alloc_run(io.per_request);
        if (!pa)
            panic("disk: no memory for %lu buffers of %lu KiB", disk_depth, io.per_request * 4);
        io.buf[i] = phys_to_virt(pa);
    }
    return d;
}

static void print_summary(const struct block_device *d, uint64_t passes, uint64_t ticks,
                          const struct block_stats *before)
{
    uint64_t reqs = d->stats.requests - before->requests;
    uint64_t notes = d->stats.notifications - before->notifications;
    uint64_t irqs = d->stats.interrupts - before->interrupts;
    uint64_t in = d->stats.submit_ticks - before->submit_ticks;
    uint64_t out = d->stats.complete_ticks - before->complete_ticks;
    uint64_t grants = d->stats.grant_ops - before->grant_ops;

    kprintf("disk: %s (%s): %lu blocks x %lu passes at depth %lu, seed 0x%lx: written, read "
            "back and checked, flushed%s\n",
            d->name, d->transport->name, disk_blocks, passes, disk_depth, disk_seed,
            disk_mutant == 1 ? " (NOT: disk.mutant=no-flush)" : "");
    kprintf("disk: %lu requests: %lu notifications, %lu interrupts (%lu.%02lu and %lu.%02lu per "
            "request)\n",
            reqs, notes, irqs, notes / reqs, notes * 100 / reqs % 100, irqs / reqs,
            irqs * 100 / reqs % 100);
    if (grants)
        kprintf("disk: %lu grant operations (%lu.%02lu per request)\n", grants, grants / reqs,
                grants * 100 / reqs % 100);
    if (io.per_request > 1)
        kprintf("disk: requests of %lu KiB: %lu indirect (their segment list outside the "
                "ring)\n",
                io.per_request * 4, d->stats.indirect - before->indirect);
    kprintf("disk: %s per request: %lu submitting, %lu completing; %lu elapsed, idle included\n",
            tsc_unit(), in / reqs, out / reqs, ticks / reqs);
}

void disk_workload_run(void)
{
    struct block_device *d;
    struct block_stats before;
    uint64_t passes, t0;

    if (!disk_choice)
        return;
    d = usable_disk();
    before = d->stats;
    t0 = bench_cycles();
    /* Held open (kernel/workload.h), the passes go on past their count. */
    for (passes = 0; passes < disk_passes || workload_held(); passes++) {
        run_phase(d, BLOCK_WRITE, passes + 1);
        run_phase(d, BLOCK_READ, passes + 1);
        flush(d, passes + 1);
    }
    print_summary(d, passes, bench_cycles() - t0, &before);
}
