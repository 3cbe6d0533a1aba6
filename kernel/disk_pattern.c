/* The disk workload's block format (kernel/disk_pattern.h). Freestanding
 * and hosted alike: the host verifier compiles this file as it is. */
#include "kernel/disk_pattern.h"

#include <stddef.h>

#define WORDS (DISK_BLOCK_SIZE / sizeof(uint64_t))
#define HEADER_WORDS (sizeof(struct disk_block_header) / sizeof(uint64_t))
#define CHECKSUM_WORD (offsetof(struct disk_block_header, checksum) / sizeof(uint64_t))
#define GOLDEN 0x9e3779b97f4a7c15ULL

/* splitmix64's finaliser: neighbouring inputs give unrelated outputs. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t pattern_word(uint64_t base, uint64_t i)
{
    return mix64(base + i * GOLDEN);
}

static uint64_t pattern_base(uint64_t block, uint64_t generation, uint64_t seed)
{
    return mix64(seed ^ mix64(block * GOLDEN ^ mix64(generation)));
}

/* Position-dependent, so swapped words change it too. */
static uint64_t block_checksum(const uint64_t *w)
{
    uint64_t sum = 0;

    for (uint64_t i = 0; i < WORDS; i++)
        sum += mix64((i == CHECKSUM_WORD ? 0 : w[i]) ^ (i * GOLDEN));
    return sum;
}

void disk_pattern_fill(void *buf, uint64_t block, uint64_t generation, uint64_t seed)
{
    uint64_t *w = buf, base = pattern_base(block, generation, seed);
    struct disk_block_header *h = buf;

    for (uint64_t i = HEADER_WORDS; i < WORDS; i++)
        w[i] = pattern_word(base, i);
    *h = (struct disk_block_header){
        .magic = DISK_PATTERN_MAGIC, .block = block, .generation = generation, .seed = seed};
    h->checksum = block_checksum(w);
}

/* The header says whose block it is; the checksum, recomputed, whether
 * its bytes are still the ones written; and the pattern, regenerated,
 * that they were written by the pattern and not merely made consistent. */
enum disk_block_fault disk_pattern_check(const void *buf, uint64_t block, uint64_t generation,
                                         uint64_t seed)
{
    const uint64_t *w = buf;
    const struct disk_block_header *h = buf;
    uint64_t base = pattern_base(block, generation, seed);

    if (h->magic != DISK_PATTERN_MAGIC)
        return DISK_BLOCK_NO_HEADER;
    if (h->block != block)
        return DISK_BLOCK_WRONG_NUMBER;
    if (h->seed != seed)
        return DISK_BLOCK_WRONG_SEED;
    if (h->generation != generation)
        return DISK_BLOCK_WRONG_GENERATION;
    if (h->checksum != block_checksum(w))
        return DISK_BLOCK_BAD_CHECKSUM;
    for (uint64_t i = HEADER_WORDS; i < WORDS; i++) {
        if (w[i] != pattern_word(base, i))
            return DISK_BLOCK_BAD_CHECKSUM;
    }
    return DISK_BLOCK_OK;
}

const char *disk_block_fault_name(enum disk_block_fault f)
{
    static const char *const names[] = {
        [DISK_BLOCK_OK] = "ok",
        [DISK_BLOCK_NO_HEADER] = "no pattern header",
        [DISK_BLOCK_WRONG_NUMBER] = "another block's data",
        [DISK_BLOCK_WRONG_SEED] = "another seed's data",
        [DISK_BLOCK_WRONG_GENERATION] = "an older or newer generation",
        [DISK_BLOCK_BAD_CHECKSUM] = "bad checksum",
    };

    return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "unknown fault";
}
