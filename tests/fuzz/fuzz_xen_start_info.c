/* xen/pv/start_info.c: a start_info page of exactly the input's size (less
 * the header), with the addresses the entry path passes alongside it.
 *
 * Input: u64 page_addr, u64 kernel_end, u64 xen_stack_top, then the page. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/boot_info.h"
#include "tests/fuzz/boot_check.h"
#include "tests/fuzz/fuzz.h"
#include "xen/pv/start_info.h"
#include "xen/xen_public.h"

/* A domU's start_info: the reservation runs from the image's end to the
 * furthest of the stack, the page tables, the frame list and start_info. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static start_info_t si;
    static struct boot_info bi;
    const uint64_t kend = 0xffffffff80200000, si_addr = kend + 0x40000;

    (void)argc;
    (void)argv;
    strcpy(si.magic, "xen-3.0-x86_64");
    si.nr_pages = 0x8000;
    si.pt_base = kend + 0x50000;
    si.nr_pt_frames = 4;
    si.mfn_list = kend;
    strcpy((char *)si.cmd_line, "console=xen");
    FUZZ_CHECK(xen_start_info_parse((const uint8_t *)&si, sizeof(si), si_addr, kend, kend + 0x8000,
                                    &bi) == NULL);
    FUZZ_CHECK(strcmp(bi.cmdline, "console=xen") == 0 && !bi.cmdline_truncated);
    FUZZ_CHECK(bi.nr_ram == 1 && bi.ram[0].len == 0x8000ull * 4096);
    FUZZ_CHECK(bi.nr_reserved == 1 && bi.reserved[0].base == kend && bi.reserved[0].len == 0x54000);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size};
    uint64_t page_addr = fuzz_take(&in, 8), kernel_end = fuzz_take(&in, 8);
    uint64_t stack_top = fuzz_take(&in, 8);
    struct boot_info *bi = calloc(1, sizeof(*bi));
    uint8_t *page = malloc(in.left ? in.left : 1);
    const char *err;

    FUZZ_CHECK(bi != NULL && page != NULL);
    if (in.left)
        memcpy(page, in.p, in.left);
    err = xen_start_info_parse(page, in.left, page_addr, kernel_end, stack_top, bi);
    check_error(err);
    check_boot_info(bi);
    if (!err) {
        const struct mem_range *r = &bi->reserved[0];
        FUZZ_CHECK(bi->nr_ram == 1 && bi->nr_reserved == 1);
        FUZZ_CHECK(bi->ram[0].base == 0 && bi->ram[0].len > 0);
        /* The reservation starts at the image's end, does not wrap, and
         * covers the stack and start_info itself. */
        FUZZ_CHECK(r->base == kernel_end && r->base + r->len >= r->base);
        FUZZ_CHECK(r->base + r->len >= stack_top);
        FUZZ_CHECK(r->base + r->len >= page_addr + sizeof(start_info_t));
        FUZZ_CHECK((r->base + r->len) % 4096 == 0);
    }
    free(page);
    free(bi);
    return 0;
}
