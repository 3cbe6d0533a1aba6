/* The disk workload's block format, shared by the guest (kernel/
 * disk_workload.c), which writes and reads it back, and the host's
 * verifier (tools/diskcheck.c), which reads the image file after the run:
 * one source, so the two cannot disagree on what a good block is. */
#ifndef KERNEL_DISK_PATTERN_H
#define KERNEL_DISK_PATTERN_H

#include <stdint.h>

#define DISK_BLOCK_SIZE 4096u
#define DISK_PATTERN_MAGIC 0x31306b7364627070ULL /* "ppbdsk01", little-endian */

/* The first bytes of every block written; the rest is pattern. */
struct disk_block_header {
    uint64_t magic;
    uint64_t block; /* its own number: a block written to the wrong place shows it */
    uint64_t generation;
    uint64_t seed;
    uint64_t checksum; /* over the whole block, this field read as 0 */
};

enum disk_block_fault {
    DISK_BLOCK_OK = 0,
    DISK_BLOCK_NO_HEADER,    /* no magic: never written, or overwritten */
    DISK_BLOCK_WRONG_NUMBER, /* another block's data */
    DISK_BLOCK_WRONG_SEED,
    DISK_BLOCK_WRONG_GENERATION, /* an older (or newer) write of this block */
    DISK_BLOCK_BAD_CHECKSUM,     /* the header is right, the bytes are not */
};

/* The line the guest prints once a flush covering blocks first..last of
 * one generation has completed; the host verifier reads these back:
 * "disk: flushed blocks 0-1023 generation 3 seed 0x1". */
#define DISK_FLUSHED_PREFIX "disk: flushed blocks "
#define DISK_FLUSHED_FORMAT DISK_FLUSHED_PREFIX "%lu-%lu generation %lu seed 0x%lx"

/* Writes block `block` of `generation` under `seed` into buf
 * (DISK_BLOCK_SIZE bytes, 8-byte aligned). */
void disk_pattern_fill(void *buf, uint64_t block, uint64_t generation, uint64_t seed);

/* What is wrong with buf as that block, or DISK_BLOCK_OK. */
enum disk_block_fault disk_pattern_check(const void *buf, uint64_t block, uint64_t generation,
                                         uint64_t seed);

/* A fault's words, for messages: "bad checksum". */
const char *disk_block_fault_name(enum disk_block_fault f);

#endif
