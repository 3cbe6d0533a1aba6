/* What every boot parser must leave in struct boot_info, whatever its
 * input: counts inside the arrays and a terminated command line. */
#ifndef TESTS_FUZZ_BOOT_CHECK_H
#define TESTS_FUZZ_BOOT_CHECK_H

#include "kernel/boot_info.h"
#include "tests/fuzz/fuzz.h"

static inline void check_boot_info(const struct boot_info *bi)
{
    FUZZ_CHECK(bi->nr_ram <= BOOT_MAX_RANGES);
    FUZZ_CHECK(bi->nr_reserved <= sizeof(bi->reserved) / sizeof(bi->reserved[0]));
    FUZZ_CHECK(bi->nr_ram_dropped == 0 || bi->nr_ram == BOOT_MAX_RANGES);
    FUZZ_CHECK(bi->nr_reserved_dropped == 0 ||
               bi->nr_reserved == sizeof(bi->reserved) / sizeof(bi->reserved[0]));
    FUZZ_CHECK(memchr(bi->cmdline, '\0', sizeof(bi->cmdline)) != NULL);
}

/* An error is one short phrase. */
static inline void check_error(const char *err)
{
    if (err) {
        FUZZ_CHECK(strnlen(err, 80) < 80);
        FUZZ_CHECK(err[0] != '\0');
    }
}

#endif
