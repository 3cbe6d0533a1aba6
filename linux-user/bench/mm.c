/* mprotect_1, _16 and _512 on Linux: one mprotect() of that many pages,
 * alternating read-only and read-write, as mm/vm_bench.c does in the
 * kernel. Each size has a region of its own: 2 MiB aligned with a guard
 * page either side, huge pages off and every page touched, so one
 * mprotect_512 is exactly one L1 table of present ptes, and no VMA is
 * split or merged by the ops (the region is one VMA of its own rights
 * throughout, and its guards keep neighbours from merging into it). */
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>

#include "linux-user/bench/linux_bench.h"
#include "bench/loop.h"

#define PAGE 4096UL
#define TABLE (2UL << 20) /* what one L1 table maps */

struct region {
    unsigned pages;
    unsigned char *base;
    int writable; /* what the last op left */
};

static struct region regions[] = {{1, 0, 1}, {16, 0, 1}, {512, 0, 1}};

/* A 2 MiB-aligned region of r->pages with guard pages around it: the
 * reservation is trimmed to size, then the guards are made inaccessible. */
static const char *map_region(struct region *r)
{
    size_t len = r->pages * PAGE, span = len + 2 * TABLE;
    unsigned char *p, *base;

    if (r->base)
        return 0;
    p = mmap(0, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return "mmap of the region failed";
    base = (unsigned char *)(((uintptr_t)p + TABLE) & ~(TABLE - 1));
    if (mprotect(base, len, PROT_READ | PROT_WRITE) != 0 ||
        madvise(base, len, MADV_NOHUGEPAGE) != 0)
        return "cannot make the region read-write without huge pages";
    for (size_t off = 0; off < len; off += PAGE)
        base[off] = 1; /* every pte present before the first op */
    r->base = base;
    r->writable = 1;
    return 0;
}

static struct region *region_of(unsigned pages)
{
    for (unsigned i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
        if (regions[i].pages == pages)
            return &regions[i];
    return 0;
}

int mm_mprotect_once(unsigned pages)
{
    struct region *r = region_of(pages);

    if (!r || map_region(r))
        return -1;
    r->writable = !r->writable;
    return mprotect(r->base, pages * PAGE, r->writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

static uint64_t mprotect_loop(unsigned pages, uint64_t n)
{
    struct region *r = region_of(pages);
    uint64_t failed = 0;
    uint64_t t = BENCH_TIME_LOOP(n, {
        r->writable = !r->writable;
        failed +=
            mprotect(r->base, pages * PAGE, r->writable ? PROT_READ | PROT_WRITE : PROT_READ) != 0;
    });

    return failed ? 0 : t;
}

static sigjmp_buf fault_jump;

static void on_fault(int sig)
{
    siglongjmp(fault_jump, sig);
}

/* Whether a write to p faults: the rights the last op left, as the MMU
 * sees them. */
static int write_faults(volatile unsigned char *p)
{
    struct sigaction sa = {.sa_handler = on_fault}, old;
    int faulted;

    sigaction(SIGSEGV, &sa, &old);
    faulted = sigsetjmp(fault_jump, 1) != 0;
    if (!faulted)
        *p = 2;
    sigaction(SIGSEGV, &old, 0);
    return faulted;
}

/* The benchmark's own loop, one op at a time, twice: after each, the
 * first and last page must have the rights it gave them. (After the
 * timed loops the count of ops is even, and a loop that did nothing
 * would leave the rights it found.) */
static const char *check_region(unsigned pages)
{
    struct region *r = region_of(pages);

    for (int k = 0; k < 2; k++) {
        if (mprotect_loop(pages, 1) == 0)
            return "mprotect failed";
        for (unsigned i = 0; i<pages; i += pages> 1 ? pages - 1 : 1)
            if (write_faults(r->base + i * PAGE) == r->writable)
                return "a page does not have the rights the last mprotect gave it";
    }
    return 0;
}

#define MPROTECT(pages_)                                                                           \
    static const char *prepare_##pages_(void)                                                      \
    {                                                                                              \
        return map_region(region_of(pages_));                                                      \
    }                                                                                              \
    static uint64_t measure_##pages_(uint64_t n)                                                   \
    {                                                                                              \
        return mprotect_loop(pages_, n);                                                           \
    }                                                                                              \
    static const char *check_##pages_(void)                                                        \
    {                                                                                              \
        return check_region(pages_);                                                               \
    }

MPROTECT(1)
MPROTECT(16)
MPROTECT(512)

/* Iterations as mm/vm_bench.c's. */
const struct linux_bench mm_benches[] = {
    {"mprotect_1", 2000, true, prepare_1, measure_1, check_1},
    {"mprotect_16", 500, true, prepare_16, measure_16, check_16},
    {"mprotect_512", 20, true, prepare_512, measure_512, check_512},
};
const unsigned mm_bench_count = sizeof(mm_benches) / sizeof(mm_benches[0]);
