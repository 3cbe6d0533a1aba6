/* kernel/acpi_parse.c: the RSDP search and the RSDP, RSDT/XSDT, MADT and
 * FADT walks inside a memory window of exactly the input's size, so a
 * read that escapes the bounds checks is a sanitizer report, and a walk
 * that never ends is a libFuzzer timeout.
 *
 * Input: u64 rsdp_pa (0: search the BIOS area for it), then the window's
 * bytes, which sit at WINDOW_BASE, the start of the BIOS area searched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/acpi_parse.h"
#include "tests/fuzz/boot_check.h"
#include "tests/fuzz/fuzz.h"

#define WINDOW_BASE 0xe0000ull
#define RSDP_OFF 0x10
#define RSDT_OFF 0x40
#define MADT_OFF 0x80
#define FADT_OFF 0x100
#define FADT_V1_LEN 116

/* Makes the n bytes at p sum to 0 by setting the one at p + at. */
static void seal(uint8_t *p, uint32_t n, unsigned at)
{
    uint8_t sum = 0;

    p[at] = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += p[i];
    p[at] = (uint8_t)-sum;
}

/* An RSDP v1 found by the search, an RSDT, a MADT listing CPUs 0 and 1
 * and an ACPI 1.0 FADT with a 32-bit PM timer at port 0x608. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static uint8_t window[512];
    struct boot_mem mem = {window, WINDOW_BASE, sizeof(window)};
    static struct boot_info bi;
    uint8_t *rsdp = window + RSDP_OFF, *rsdt = window + RSDT_OFF, *madt = window + MADT_OFF;
    uint8_t *fadt = window + FADT_OFF;

    (void)argc;
    (void)argv;
    memcpy(rsdp, "RSD PTR ", 8);
    fuzz_put(rsdp + 16, WINDOW_BASE + RSDT_OFF, 4);
    seal(rsdp, 20, 8);
    memcpy(rsdt, "RSDT", 4);
    fuzz_put(rsdt + 4, 44, 4);
    fuzz_put(rsdt + 36, WINDOW_BASE + MADT_OFF, 4);
    fuzz_put(rsdt + 40, WINDOW_BASE + FADT_OFF, 4);
    seal(rsdt, 44, 9);
    memcpy(madt, "APIC", 4);
    fuzz_put(madt + 4, 44 + 2 * 8, 4);
    fuzz_put(madt + 36, 0xfee00000, 4);
    for (unsigned i = 0; i < 2; i++) {
        uint8_t *e = madt + 44 + 8 * i;
        e[0] = 0;
        e[1] = 8;
        e[3] = (uint8_t)i;
        fuzz_put(e + 4, 1, 4);
    }
    seal(madt, 60, 9);
    memcpy(fadt, "FACP", 4);
    fuzz_put(fadt + 4, FADT_V1_LEN, 4);
    fuzz_put(fadt + 76, 0x608, 4);
    fadt[91] = 4;
    fuzz_put(fadt + 112, 1u << 8, 4);
    seal(fadt, FADT_V1_LEN, 9);
    acpi_boot_tables(&mem, 0, &bi);
    FUZZ_CHECK(bi.cpus_error == NULL);
    FUZZ_CHECK(bi.nr_cpus == 2 && bi.cpu_apic_id[1] == 1 && bi.lapic_base == 0xfee00000);
    FUZZ_CHECK(bi.pm_timer_error == NULL);
    FUZZ_CHECK(bi.pm_timer_port == 0x608 && bi.pm_timer_bits == 32);
    return 0;
}

/* A usable list: 1..MAX_CPUS distinct ids the xAPIC can address. */
static void check_cpus(const struct boot_info *bi)
{
    FUZZ_CHECK(bi->nr_cpus >= 1 && bi->nr_cpus <= MAX_CPUS);
    FUZZ_CHECK(bi->lapic_base != 0);
    for (unsigned i = 0; i < bi->nr_cpus; i++) {
        FUZZ_CHECK(bi->cpu_apic_id[i] < 0xff);
        for (unsigned j = 0; j < i; j++)
            FUZZ_CHECK(bi->cpu_apic_id[i] != bi->cpu_apic_id[j]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size};
    uint64_t rsdp_pa = fuzz_take(&in, 8);
    struct boot_info *bi = calloc(1, sizeof(*bi));
    uint8_t *bytes = malloc(in.left ? in.left : 1);
    struct boot_mem mem = {bytes, WINDOW_BASE, in.left};

    FUZZ_CHECK(bi != NULL && bytes != NULL);
    if (in.left)
        memcpy(bytes, in.p, in.left);
    acpi_boot_tables(&mem, rsdp_pa, bi);
    check_error(bi->cpus_error);
    if (bi->cpus_error)
        FUZZ_CHECK(bi->nr_cpus == 0);
    else
        check_cpus(bi);
    /* A PM timer is a port with all 4 bytes in the I/O space, or none with an error. */
    check_error(bi->pm_timer_error);
    if (bi->pm_timer_error)
        FUZZ_CHECK(bi->pm_timer_port == 0 && bi->pm_timer_bits == 0);
    else
        FUZZ_CHECK(bi->pm_timer_port != 0 && bi->pm_timer_port <= 0xfffc &&
                   (bi->pm_timer_bits == 24 || bi->pm_timer_bits == 32));
    free(bytes);
    free(bi);
    return 0;
}
