/* diskcheck: the host's check of the disk workload (kernel/disk_workload.c)
 * after the guest has stopped.
 *
 *   diskcheck IMAGE CONSOLE [TRACE]
 *   diskcheck --fill IMAGE FIRST LAST GENERATION SEED
 *
 * Reads the guest's flushed-blocks lines from the CONSOLE log, and checks
 * every block they name, in the image file, against the pattern of the
 * last generation a line gave it, with the kernel's own
 * kernel/disk_pattern.c. With TRACE, QEMU's trace of its virtio-blk
 * device (virtio_blk_handle_read/_write and virtio_blk_req_complete), a
 * block is also wrong unless the device completed a write to it and,
 * after the last, a flush (a request completed that was neither a read
 * nor a write, with status 0); and a guest that claims more flushes than
 * the device saw fails. The bytes alone prove no flush: the host's page
 * cache puts them in the file without one.
 * Prints one line,
 *   disk-check: 256 blocks verified on the host, 0 wrong; 1 flush by the device for 1 claimed
 * (and a line for each of the first wrong blocks before it); exits 0 if
 * all is well, 1 if not, 2 if it cannot read its input. --fill writes
 * blocks FIRST..LAST of the pattern into IMAGE, as the guest would: for
 * the tests of this check (tests/tools/test_diskcheck.py). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/disk_pattern.h"

#define MAX_CLAIMS 100000
#define MAX_OPEN 1024 /* requests the device holds at once */
#define SHOW_WRONG 5

struct claim {
    uint64_t first, last, generation, seed;
};

static struct claim claims[MAX_CLAIMS];
static size_t nr_claims;

static FILE *open_or_die(const char *path, const char *what)
{
    FILE *f = fopen(path, "rb");

    if (!f) {
        fprintf(stderr, "diskcheck: cannot open the %s %s\n", what, path);
        exit(2);
    }
    return f;
}

/* The console may prefix lines (a domU's relay does): the claim is found
 * anywhere in a line. */
static void read_claims(const char *path)
{
    FILE *f = open_or_die(path, "console log");
    char line[4096];

    while (fgets(line, sizeof(line), f)) {
        const char *at = strstr(line, DISK_FLUSHED_PREFIX);
        struct claim c;

        if (!at || sscanf(at,
                          DISK_FLUSHED_PREFIX "%" SCNu64 "-%" SCNu64 " generation %" SCNu64
                                              " seed 0x%" SCNx64,
                          &c.first, &c.last, &c.generation, &c.seed) != 4)
            continue;
        if (c.last < c.first || nr_claims == MAX_CLAIMS) {
            fprintf(stderr, "diskcheck: cannot use the line: %s", at);
            exit(2);
        }
        claims[nr_claims++] = c;
    }
    fclose(f);
}

/* The last claim that covers block b: its newest generation. */
static const struct claim *claim_for(uint64_t b)
{
    for (size_t i = nr_claims; i-- > 0;) {
        if (claims[i].first <= b && b <= claims[i].last)
            return &claims[i];
    }
    return NULL;
}

static uint64_t highest_block(void)
{
    uint64_t top = 0;

    for (size_t i = 0; i < nr_claims; i++)
        top = claims[i].last > top ? claims[i].last : top;
    return top;
}

/* What QEMU's trace of the device says: the event number of each block's
 * last completed write (0: none) and of the last completed flush. */
struct device_record {
    bool present;
    uint64_t *last_write; /* per block, up to the highest claimed */
    uint64_t last_flush, flushes;
};

static struct device_record record;

/* Why the device's record says block b may not be on the disk, or NULL. */
static const char *unflushed(uint64_t b)
{
    if (!record.present)
        return NULL;
    if (record.last_write[b] == 0)
        return "the device completed no write to it in this run";
    if (record.last_write[b] > record.last_flush)
        return "the device completed no flush after its last write";
    return NULL;
}

/* Returns the number of wrong blocks; *checked gets how many were read. */
static uint64_t check_image(const char *path, uint64_t *checked)
{
    FILE *f = open_or_die(path, "image");
    static _Alignas(8) unsigned char buf[DISK_BLOCK_SIZE];
    uint64_t wrong = 0, top = highest_block();

    *checked = 0;
    for (uint64_t b = 0; b <= top; b++) {
        const struct claim *c = claim_for(b);
        enum disk_block_fault fault;
        const char *why;

        if (!c)
            continue;
        (*checked)++;
        if (fseeko(f, (off_t)(b * DISK_BLOCK_SIZE), SEEK_SET) != 0 ||
            fread(buf, 1, sizeof(buf), f) != sizeof(buf))
            memset(buf, 0, sizeof(buf)); /* past the end: never written */
        fault = disk_pattern_check(buf, b, c->generation, c->seed);
        why = fault != DISK_BLOCK_OK ? disk_block_fault_name(fault) : unflushed(b);
        if (!why)
            continue;
        if (wrong++ < SHOW_WRONG)
            printf("disk-check: block %" PRIu64 ": %s (expected generation %" PRIu64 ")\n", b, why,
                   c->generation);
    }
    fclose(f);
    return wrong;
}

static bool parse_req(const char *line, uint64_t *req)
{
    const char *at = strstr(line, " req 0x");

    return at && sscanf(at, " req 0x%" SCNx64, req) == 1;
}

/* A read or write the device has begun and not completed. */
struct open_req {
    uint64_t req, first, last; /* blocks, for a write */
    bool write;
};

/* The blocks a handle_write line's "sector S nsectors N" covers. */
static void parse_write(const char *line, struct open_req *o)
{
    const char *at = strstr(line, " sector ");
    uint64_t sector, n;

    o->first = 1, o->last = 0; /* none */
    if (at && sscanf(at, " sector %" SCNu64 " nsectors %" SCNu64, &sector, &n) == 2 && n) {
        o->first = sector / (DISK_BLOCK_SIZE / 512);
        o->last = (sector + n - 1) / (DISK_BLOCK_SIZE / 512);
    }
}

static void complete_write(const struct open_req *o, uint64_t event, uint64_t top)
{
    for (uint64_t b = o->first; b <= o->last && b <= top; b++)
        record.last_write[b] = event;
}

/* Numbers the device's completions in order. QEMU reuses a request's
 * memory, so a completion is a read's or a write's only if that request
 * is open at the moment; any other that succeeded is a flush, the one
 * other request the workload sends. */
static void read_trace(const char *path)
{
    FILE *f = open_or_die(path, "trace");
    char line[1024];
    struct open_req open[MAX_OPEN];
    uint64_t req, status, event = 0, top = highest_block();
    size_t nr_open = 0;

    record.present = true;
    record.last_write = calloc(top + 1, sizeof(uint64_t));
    if (!record.last_write) {
        fprintf(stderr, "diskcheck: no memory for %" PRIu64 " blocks\n", top + 1);
        exit(2);
    }
    while (fgets(line, sizeof(line), f)) {
        bool write = strstr(line, "virtio_blk_handle_write ") != NULL;

        if (write || strstr(line, "virtio_blk_handle_read ")) {
            if (parse_req(line, &req) && nr_open < MAX_OPEN) {
                open[nr_open] = (struct open_req){.req = req, .write = write};
                if (write)
                    parse_write(line, &open[nr_open]);
                nr_open++;
            }
        } else if (strstr(line, "virtio_blk_req_complete ") && parse_req(line, &req)) {
            const char *st = strstr(line, " status ");
            bool was_rw = false,
                 ok = st && sscanf(st, " status %" SCNu64, &status) == 1 && status == 0;

            event++;
            for (size_t i = 0; i < nr_open && !was_rw; i++) {
                if (open[i].req == req) {
                    if (open[i].write && ok)
                        complete_write(&open[i], event, top);
                    open[i] = open[--nr_open];
                    was_rw = true;
                }
            }
            if (!was_rw && ok) {
                record.flushes++;
                record.last_flush = event;
            }
        }
    }
    fclose(f);
}

static int fill(char **argv)
{
    uint64_t first, last, generation, seed;
    static _Alignas(8) unsigned char buf[DISK_BLOCK_SIZE];
    FILE *f = fopen(argv[0], "r+b");

    if (!f || sscanf(argv[1], "%" SCNu64, &first) != 1 || sscanf(argv[2], "%" SCNu64, &last) != 1 ||
        sscanf(argv[3], "%" SCNu64, &generation) != 1 || sscanf(argv[4], "%" SCNx64, &seed) != 1) {
        fprintf(stderr, "diskcheck: --fill IMAGE FIRST LAST GENERATION SEED (an existing IMAGE)\n");
        if (f)
            fclose(f);
        return 2;
    }
    for (uint64_t b = first; b <= last; b++) {
        disk_pattern_fill(buf, b, generation, seed);
        if (fseeko(f, (off_t)(b * DISK_BLOCK_SIZE), SEEK_SET) != 0 ||
            fwrite(buf, 1, sizeof(buf), f) != sizeof(buf)) {
            fprintf(stderr, "diskcheck: cannot write block %" PRIu64 "\n", b);
            fclose(f);
            return 2;
        }
    }
    return fclose(f) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    uint64_t checked, wrong;
    bool short_of_flushes;

    if (argc == 7 && strcmp(argv[1], "--fill") == 0)
        return fill(argv + 2);
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: diskcheck IMAGE CONSOLE [TRACE] | --fill IMAGE FIRST LAST "
                        "GENERATION SEED\n");
        return 2;
    }
    read_claims(argv[2]);
    if (nr_claims == 0) {
        printf("disk-check: the guest named no flushed blocks: nothing to verify\n");
        return 0;
    }
    if (argc == 4)
        read_trace(argv[3]);
    wrong = check_image(argv[1], &checked);
    short_of_flushes = record.present && record.flushes < nr_claims;
    printf("disk-check: %" PRIu64 " blocks verified on the host, %" PRIu64 " wrong", checked,
           wrong);
    if (record.present)
        printf("; %" PRIu64 " flush%s by the device for %zu claimed", record.flushes,
               record.flushes == 1 ? "" : "es", nr_claims);
    printf("\n");
    free(record.last_write);
    return wrong || short_of_flushes ? 1 : 0;
}
