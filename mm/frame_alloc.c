#include "mm/frame_alloc.h"

#define FRAME_COUNT (FRAME_MAX_PHYS / FRAME_SIZE)
#define WORD_BITS 64
#define WORD_COUNT (FRAME_COUNT / WORD_BITS)

/* Two bitmaps: which frames are ours at all, and which of those are free.
 * The first lets frame_free() refuse frames it never handed out. */
static uint64_t managed_map[WORD_COUNT];
static uint64_t free_map[WORD_COUNT];

static uint64_t frame_limit; /* one past the highest managed frame: scans stop here */
static uint64_t next_frame;  /* where the next-fit search resumes */
static uint64_t total_count;
static uint64_t free_count;
static uint64_t ignored_bytes;

static void set_bits(uint64_t *map, uint64_t first, uint64_t end, bool value)
{
    for (uint64_t f = first; f < end;) {
        uint64_t bit = f % WORD_BITS;
        uint64_t n = end - f < WORD_BITS - bit ? end - f : WORD_BITS - bit;
        uint64_t mask = (n == WORD_BITS ? ~0ULL : ((1ULL << n) - 1)) << bit;

        if (value)
            map[f / WORD_BITS] |= mask;
        else
            map[f / WORD_BITS] &= ~mask;
        f += n;
    }
}

static bool test_bit(const uint64_t *map, uint64_t frame)
{
    return map[frame / WORD_BITS] >> (frame % WORD_BITS) & 1;
}

/* By hand: __builtin_popcountll can become a libgcc call the kernel lacks. */
static unsigned count_bits(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* A range's end, saturating rather than wrapping past 2^64. */
static uint64_t range_end(const struct mem_range *r)
{
    return r->len > UINT64_MAX - r->base ? UINT64_MAX : r->base + r->len;
}

/* The first frame starting at or after address a; cannot overflow. */
static uint64_t frame_at_or_after(uint64_t a)
{
    return a / FRAME_SIZE + (a % FRAME_SIZE != 0);
}

/* Whole frames inside the range only: a partial frame is not all RAM. */
static void add_usable(const struct mem_range *r)
{
    uint64_t end = range_end(r);
    uint64_t first = frame_at_or_after(r->base);
    uint64_t last = min_u64(end, FRAME_MAX_PHYS) / FRAME_SIZE;

    if (end > FRAME_MAX_PHYS)
        ignored_bytes += end - (r->base > FRAME_MAX_PHYS ? r->base : FRAME_MAX_PHYS);
    if (first >= last)
        return;
    set_bits(managed_map, first, last, true);
    if (last > frame_limit)
        frame_limit = last;
}

/* Every frame the range touches, even partly. */
static void remove_reserved(const struct mem_range *r)
{
    uint64_t first = r->base / FRAME_SIZE;
    uint64_t last = min_u64(frame_at_or_after(range_end(r)), FRAME_COUNT);

    if (first < last)
        set_bits(managed_map, first, last, false);
}

static void clear_maps(void)
{
    for (uint64_t i = 0; i < WORD_COUNT; i++) {
        managed_map[i] = 0;
        free_map[i] = 0;
    }
}

void frame_alloc_init(const struct mem_range *usable, size_t nusable,
                      const struct mem_range *reserved, size_t nreserved)
{
    clear_maps();
    frame_limit = 0;
    ignored_bytes = 0;
    for (size_t i = 0; i < nusable; i++)
        add_usable(&usable[i]);
    for (size_t i = 0; i < nreserved; i++)
        remove_reserved(&reserved[i]);
    set_bits(managed_map, 0, 1, false); /* address 0 means "no frame" */

    total_count = 0;
    for (uint64_t i = 0; i < (frame_limit + WORD_BITS - 1) / WORD_BITS; i++) {
        free_map[i] = managed_map[i];
        total_count += count_bits(managed_map[i]);
    }
    free_count = total_count;
    next_frame = 0;
}

/* The lowest free frame in [first, end), or 0 if there is none. */
static uint64_t find_free(uint64_t first, uint64_t end)
{
    end = min_u64(end, frame_limit);
    for (uint64_t f = first; f < end;) {
        uint64_t word = free_map[f / WORD_BITS] >> (f % WORD_BITS);

        if (word) {
            f += (uint64_t)__builtin_ctzll(word);
            return f < end ? f : 0;
        }
        f = (f / WORD_BITS + 1) * WORD_BITS;
    }
    return 0;
}

static uint64_t take(uint64_t frame)
{
    set_bits(free_map, frame, frame + 1, false);
    free_count--;
    return frame * FRAME_SIZE;
}

/* Next-fit: spreads use over memory instead of recycling the same frames. */
uint64_t frame_alloc(void)
{
    uint64_t frame = find_free(next_frame, frame_limit);

    if (!frame)
        frame = find_free(1, next_frame);
    if (!frame)
        return 0;
    next_frame = frame + 1;
    return take(frame);
}

/* First fit: runs are rare (I/O buffers), taken once, and kept. */
uint64_t frame_alloc_run(uint64_t n)
{
    for (uint64_t f = find_free(1, frame_limit); f && n; f = find_free(f + 1, frame_limit)) {
        uint64_t len = 1;

        while (len < n && f + len < frame_limit && test_bit(free_map, f + len))
            len++;
        if (len < n) {
            f += len;
            continue;
        }
        for (uint64_t i = 0; i < n; i++)
            take(f + i);
        return f * FRAME_SIZE;
    }
    return 0;
}

uint64_t frame_alloc_below(uint64_t limit)
{
    uint64_t frame = find_free(1, limit / FRAME_SIZE);

    return frame ? take(frame) : 0;
}

bool frame_free(uint64_t pa)
{
    uint64_t frame = pa / FRAME_SIZE;

    if (pa % FRAME_SIZE || frame >= frame_limit || !test_bit(managed_map, frame) ||
        test_bit(free_map, frame))
        return false;
    set_bits(free_map, frame, frame + 1, true);
    free_count++;
    return true;
}

bool frame_is_free(uint64_t pa)
{
    uint64_t frame = pa / FRAME_SIZE;

    return frame < frame_limit && test_bit(free_map, frame);
}

uint64_t frames_free(void)
{
    return free_count;
}

uint64_t frames_total(void)
{
    return total_count;
}

uint64_t frame_bytes_ignored(void)
{
    return ignored_bytes;
}
