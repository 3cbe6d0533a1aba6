/* kernel/mb2_parse.c: the Multiboot2 tag walk over a block of exactly the
 * input's size, so any read past it is a sanitizer report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/mb2_parse.h"
#include "tests/fuzz/boot_check.h"
#include "tests/fuzz/fuzz.h"

/* A GRUB-like block: the command line after the loader's path, two
 * available ranges and one reserved. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const char cmd[] = "/boot/patchbay.elf pv.patch=off";
    uint8_t block[256] = {0}, *p = block + 8, *tag;
    static struct boot_info bi;
    static const uint64_t map[3][3] = {{0, 0x9fc00, 1}, {0x9fc00, 0x400, 2}, {1 << 20, 1 << 30, 1}};

    (void)argc;
    (void)argv;
    p = fuzz_put(p, 1, 4);
    p = fuzz_put(p, 8 + sizeof(cmd), 4);
    memcpy(p, cmd, sizeof(cmd));
    p += (sizeof(cmd) + 7) & ~7u;
    tag = p;
    p = fuzz_put(p, 6, 4);
    p = fuzz_put(p, 16 + 3 * 24, 4);
    p = fuzz_put(p, 24, 4);
    p = fuzz_put(p, 0, 4);
    for (int i = 0; i < 3; i++) {
        p = fuzz_put(p, map[i][0], 8);
        p = fuzz_put(p, map[i][1], 8);
        p = fuzz_put(p, map[i][2], 8);
    }
    FUZZ_CHECK(p - tag == 16 + 3 * 24);
    p = fuzz_put(p, 0, 4);
    p = fuzz_put(p, 8, 4);
    fuzz_put(block, (uint64_t)(p - block), 4);
    FUZZ_CHECK(mb2_parse(block, (size_t)(p - block), &bi) == NULL);
    FUZZ_CHECK(strcmp(bi.cmdline, " pv.patch=off") == 0);
    FUZZ_CHECK(bi.nr_ram == 2 && bi.ram[0].len == 0x9fc00 && bi.ram[1].base == 1 << 20);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct boot_info *bi = calloc(1, sizeof(*bi));
    uint8_t *info = malloc(size ? size : 1);
    const char *err;

    FUZZ_CHECK(bi != NULL && info != NULL);
    if (size)
        memcpy(info, data, size);
    err = mb2_parse(info, size, bi);
    check_error(err);
    check_boot_info(bi);
    if (!err)
        FUZZ_CHECK(bi->nr_ram > 0);
    free(info);
    free(bi);
    return 0;
}
