/* kernel/boot_info.c: a sequence of boot_info_set_cmdline, add_ram and
 * add_reserved calls, as entry paths make them with what a loader gave.
 * The command line source is a buffer of exactly `max` bytes with no
 * terminator required, so reading past max is a sanitizer report. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/boot_info.h"
#include "tests/fuzz/boot_check.h"
#include "tests/fuzz/fuzz.h"

#define NR_RESERVED (sizeof(((struct boot_info *)0)->reserved) / sizeof(struct mem_range))

static void set_cmdline(struct boot_info *bi, struct fuzz_input *in)
{
    size_t max = (size_t)fuzz_take(in, 2), expect;
    char *src;

    if (max > in->left)
        max = in->left;
    /* Exactly max bytes, so the sanitizer sees any read past them. */
    src = malloc(max ? max : 1);
    FUZZ_CHECK(src != NULL);
    memcpy(src, in->p, max);
    in->p += max;
    in->left -= max;
    boot_info_set_cmdline(bi, src, max);
    expect = strnlen(src, max);
    if (expect > BOOT_CMDLINE_MAX - 1) { /* a full buffer with more to come */
        expect = BOOT_CMDLINE_MAX - 1;
        FUZZ_CHECK(bi->cmdline_truncated);
    }
    FUZZ_CHECK(strlen(bi->cmdline) == expect);
    FUZZ_CHECK(memcmp(bi->cmdline, src, expect) == 0);
    free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct boot_info *bi = calloc(1, sizeof(*bi));
    struct fuzz_input in = {data, size};
    size_t ram_calls = 0, reserved_calls = 0;

    FUZZ_CHECK(bi != NULL);
    while (in.left > 0) {
        unsigned op = (unsigned)fuzz_take(&in, 1) % 3;
        uint64_t base, len;
        switch (op) {
        case 0:
            set_cmdline(bi, &in);
            break;
        case 1:
            base = fuzz_take(&in, 8);
            len = fuzz_take(&in, 8);
            boot_info_add_ram(bi, base, len);
            if (ram_calls < BOOT_MAX_RANGES)
                FUZZ_CHECK(bi->ram[ram_calls].base == base && bi->ram[ram_calls].len == len);
            ram_calls++;
            break;
        default:
            base = fuzz_take(&in, 8);
            len = fuzz_take(&in, 8);
            boot_info_add_reserved(bi, base, len);
            if (reserved_calls < NR_RESERVED)
                FUZZ_CHECK(bi->reserved[reserved_calls].base == base &&
                           bi->reserved[reserved_calls].len == len);
            reserved_calls++;
            break;
        }
        check_boot_info(bi);
        FUZZ_CHECK(bi->nr_ram + bi->nr_ram_dropped == ram_calls);
        FUZZ_CHECK(bi->nr_reserved + bi->nr_reserved_dropped == reserved_calls);
    }
    free(bi);
    return 0;
}
