/* kernel/pvh_parse.c: PVH start info, memory map and command line inside a
 * memory window of exactly the input's size, so a pointer that escapes the
 * bounds checks is a sanitizer report.
 *
 * Input: u64 start_info_pa, then the window's bytes, which sit at
 * WINDOW_BASE (the seeds put the start info there). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/pvh_parse.h"
#include "tests/fuzz/boot_check.h"
#include "tests/fuzz/fuzz.h"

#define WINDOW_BASE 0x100000ull

/* Version 1 start info, its memory map and command line, as QEMU lays them out. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    uint8_t window[256] = {0}, *p = window;
    static const char cmd[] = "console=hvc0";
    struct boot_mem mem = {window, WINDOW_BASE, sizeof(window)};
    static struct boot_info bi;
    struct pvh_start start;

    (void)argc;
    (void)argv;
    p = fuzz_put(p, 0x336ec578, 4); /* XEN_HVM_START_MAGIC_VALUE */
    p = fuzz_put(p, 1, 4);
    p = fuzz_put(p, 0, 8);
    p = fuzz_put(p, 0, 8);
    p = fuzz_put(p, WINDOW_BASE + 56 + 2 * 24, 8); /* cmdline_paddr */
    p = fuzz_put(p, 0, 8);
    p = fuzz_put(p, WINDOW_BASE + 56, 8); /* memmap_paddr */
    p = fuzz_put(p, 2, 4);
    p = fuzz_put(p, 0, 4);
    p = fuzz_put(p, 1 << 20, 8);
    p = fuzz_put(p, 1 << 30, 8);
    p = fuzz_put(p, 1, 8); /* XEN_HVM_MEMMAP_TYPE_RAM */
    p = fuzz_put(p, 0xfee00000, 8);
    p = fuzz_put(p, 0x1000, 8);
    p = fuzz_put(p, 2, 8);
    memcpy(p, cmd, sizeof(cmd));
    FUZZ_CHECK(pvh_parse(&mem, WINDOW_BASE, false, &bi, &start) == NULL);
    FUZZ_CHECK(strcmp(bi.cmdline, cmd) == 0);
    FUZZ_CHECK(bi.nr_ram == 1 && bi.ram[0].base == 1 << 20 && bi.ram[0].len == 1 << 30);
    return 0;
}

/* *out is always set: a usable start info was found, and one not found
 * leaves nothing but zeros for a door to act on. */
static void check_start(const char *err, const struct pvh_start *start)
{
    uint8_t found;

    memcpy(&found, &start->found, 1);
    FUZZ_CHECK(found <= 1);
    FUZZ_CHECK(err || start->found);
    if (!start->found)
        FUZZ_CHECK(start->version == 0 && start->flags == 0 && start->rsdp_paddr == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size};
    uint64_t start_info_pa = fuzz_take(&in, 8);
    struct boot_info *bi = calloc(1, sizeof(*bi));
    struct pvh_start start;
    uint8_t *bytes = malloc(in.left ? in.left : 1);
    struct boot_mem mem = {bytes, WINDOW_BASE, in.left};
    const char *err;

    FUZZ_CHECK(bi != NULL && bytes != NULL);
    if (in.left)
        memcpy(bytes, in.p, in.left);
    /* Both doors' rules over the same bytes: QEMU's wants a memory map,
     * Xen's PVH dom0 may do without. */
    memset(&start, 0xa5, sizeof(start));
    err = pvh_parse(&mem, start_info_pa, false, bi, &start);
    check_error(err);
    check_boot_info(bi);
    check_start(err, &start);
    if (!err)
        FUZZ_CHECK(bi->nr_ram > 0 && start.version >= 1);
    memset(bi, 0, sizeof(*bi));
    memset(&start, 0xa5, sizeof(start));
    err = pvh_parse(&mem, start_info_pa, true, bi, &start);
    check_error(err);
    check_boot_info(bi);
    check_start(err, &start);
    if (!err)
        FUZZ_CHECK(bi->nr_ram > 0 || start.version == 0);
    free(bytes);
    free(bi);
    return 0;
}
