/* diskcheck: the host's check of the disk workload (kernel/disk_workload.c)
 * after the guest has stopped.
 *
 *   diskcheck IMAGE CONSOLE [TRACE]
 *
 * Reads the guest's flushed-blocks lines from the CONSOLE log, and checks
 * every block they name, in the image file, against the pattern of the
 * last generation a line gave it, with the kernel's own
 * kernel/disk_pattern.c. With TRACE, QEMU's trace of its virtio-blk
 * device (virtio_blk_handle_read/_write and virtio_blk_req_complete), it
 * also counts the flushes the device completed: a request completed that
 * was neither a read nor a write, with status 0. A guest that claims more
 * flushes than the device saw fails, even when the bytes are in the
 * file, which the host's page cache would hold without any flush.
 * Prints one line,
 *   disk-check: 256 blocks verified on the host, 0 wrong; 1 flush by the device for 1 claimed
 * (and a line for each of the first wrong blocks before it); exits 0 if
 * all is well, 1 if not, 2 if it cannot read its input. */
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

/* Returns the number of wrong blocks; *checked gets how many were read. */
static uint64_t check_image(const char *path, uint64_t *checked)
{
    FILE *f = open_or_die(path, "image");
    static _Alignas(8) unsigned char buf[DISK_BLOCK_SIZE];
    uint64_t wrong = 0, top = nr_claims ? highest_block() : 0;

    *checked = 0;
    for (uint64_t b = 0; nr_claims && b <= top; b++) {
        const struct claim *c = claim_for(b);
        enum disk_block_fault fault;

        if (!c)
            continue;
        (*checked)++;
        if (fseeko(f, (off_t)(b * DISK_BLOCK_SIZE), SEEK_SET) != 0 ||
            fread(buf, 1, sizeof(buf), f) != sizeof(buf))
            memset(buf, 0, sizeof(buf)); /* past the end: never written */
        fault = disk_pattern_check(buf, b, c->generation, c->seed);
        if (fault == DISK_BLOCK_OK)
            continue;
        if (wrong++ < SHOW_WRONG)
            printf("disk-check: block %" PRIu64 ": %s (expected generation %" PRIu64 ")\n", b,
                   disk_block_fault_name(fault), c->generation);
    }
    fclose(f);
    return wrong;
}

static bool parse_req(const char *line, uint64_t *req)
{
    const char *at = strstr(line, " req 0x");

    return at && sscanf(at, " req 0x%" SCNx64, req) == 1;
}

/* Requests the device has begun as a read or a write and not completed;
 * QEMU reuses a request's memory, so only what is open at the moment of
 * a completion counts as a read or write. */
static uint64_t count_flushes(const char *path)
{
    FILE *f = open_or_die(path, "trace");
    char line[1024];
    uint64_t open[MAX_OPEN], flushes = 0, req, status;
    size_t nr_open = 0;

    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "virtio_blk_handle_read ") || strstr(line, "virtio_blk_handle_write ")) {
            if (parse_req(line, &req) && nr_open < MAX_OPEN)
                open[nr_open++] = req;
        } else if (strstr(line, "virtio_blk_req_complete ") && parse_req(line, &req)) {
            const char *st = strstr(line, " status ");
            bool was_rw = false;

            for (size_t i = 0; i < nr_open && !was_rw; i++) {
                if (open[i] == req) {
                    open[i] = open[--nr_open];
                    was_rw = true;
                }
            }
            if (!was_rw && st && sscanf(st, " status %" SCNu64, &status) == 1 && status == 0)
                flushes++;
        }
    }
    fclose(f);
    return flushes;
}

int main(int argc, char **argv)
{
    uint64_t checked, wrong, flushes = 0;
    bool short_of_flushes;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: diskcheck IMAGE CONSOLE [TRACE]\n");
        return 2;
    }
    read_claims(argv[2]);
    if (nr_claims == 0) {
        printf("disk-check: the guest named no flushed blocks: nothing to verify\n");
        return 0;
    }
    wrong = check_image(argv[1], &checked);
    if (argc == 4)
        flushes = count_flushes(argv[3]);
    short_of_flushes = argc == 4 && flushes < nr_claims;
    printf("disk-check: %" PRIu64 " blocks verified on the host, %" PRIu64 " wrong", checked,
           wrong);
    if (argc == 4)
        printf("; %" PRIu64 " flush%s by the device for %zu claimed", flushes,
               flushes == 1 ? "" : "es", nr_claims);
    printf("\n");
    return wrong || short_of_flushes ? 1 : 0;
}
