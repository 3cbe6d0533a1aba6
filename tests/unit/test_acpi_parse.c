/* kernel/acpi_parse.c: the CPU list and the PM timer from ACPI tables
 * built here in a memory image, with checksums made right as firmware
 * makes them: RSDP v1 with an RSDT and v2 with an XSDT, 1, 4 and more CPUs
 * than fit, disabled and x2APIC entries, the RSDP search, ACPI 1.0 and
 * 2.0 FADTs and the rules that choose the PM timer's port, and one test
 * per malformed input, each naming its error. Breaking a table after its
 * checksum is sealed is how the checksum tests catch a parser that never
 * checks one. Also mb2_acpi_rsdp(), the multiboot2 door's way to the RSDP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/acpi_parse.h"
#include "kernel/mb2_parse.h"

/* Addresses [0, MEM_LEN): low memory, the BIOS area and a little above 1 MiB. */
#define MEM_LEN 0x110000u
#define RSDP_PA 0xf5000u
#define RSDT_PA 0x100000u
#define XSDT_PA 0x100100u
#define FACP_PA 0x100200u
#define MADT_PA 0x100300u
#define MADT2_PA 0x100800u
#define FADT2_PA 0x100c00u /* room for an ACPI 2.0+ FADT, past FACP_PA's 1.0 one */
#define LAPIC 0xfee00000u
#define PM_PORT 0x608u /* QEMU's */
#define FADT_TMR_VAL_EXT (1u << 8)
#define FADT_HW_REDUCED (1u << 20)

static uint8_t mem_bytes[MEM_LEN];
static const struct boot_mem mem = {mem_bytes, 0, MEM_LEN};
static struct acpi_cpus cpus;
static struct acpi_pm_timer timer;

static void put(uint64_t pa, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        mem_bytes[pa + i] = (uint8_t)(v >> (8 * i));
}

/* Makes the n bytes at pa sum to 0 by setting the one at pa + at. */
static void seal(uint64_t pa, uint32_t n, unsigned at)
{
    uint8_t sum = 0;

    mem_bytes[pa + at] = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += mem_bytes[pa + i];
    mem_bytes[pa + at] = (uint8_t)-sum;
}

static void seal_table(uint64_t pa)
{
    seal(pa, mem_bytes[pa + 4] | mem_bytes[pa + 5] << 8 | mem_bytes[pa + 6] << 16, 9);
}

static void rsdp_v1(uint64_t pa, uint32_t rsdt)
{
    memcpy(mem_bytes + pa, "RSD PTR ", 8);
    memcpy(mem_bytes + pa + 9, "PBAYTS", 6);
    mem_bytes[pa + 15] = 0;
    put(pa + 16, rsdt, 4);
    seal(pa, 20, 8);
}

static void rsdp_v2(uint64_t pa, uint32_t rsdt, uint64_t xsdt)
{
    rsdp_v1(pa, rsdt);
    mem_bytes[pa + 15] = 2;
    put(pa + 20, 36, 4);
    put(pa + 24, xsdt, 8);
    seal(pa, 20, 8);
    seal(pa, 36, 32);
}

/* A table header with signature sig and length len; sealed by the caller. */
static void header(uint64_t pa, const char *sig, uint32_t len)
{
    memcpy(mem_bytes + pa, sig, 4);
    put(pa + 4, len, 4);
    mem_bytes[pa + 8] = 1;
    memcpy(mem_bytes + pa + 10, "PBAYTS", 6);
}

/* An RSDT (entry_len 4) or XSDT (8) listing n tables. */
static void root_table(uint64_t pa, unsigned entry_len, const uint64_t *tables, unsigned n)
{
    header(pa, entry_len == 8 ? "XSDT" : "RSDT", 36 + n * entry_len);
    for (unsigned i = 0; i < n; i++)
        put(pa + 36 + i * entry_len, tables[i], entry_len);
    seal_table(pa);
}

/* A MADT built up entry by entry, sealed by madt_end(). */
static uint64_t madt_pa;
static uint32_t madt_len;

static void madt_begin(uint64_t pa)
{
    madt_pa = pa;
    madt_len = 44;
    header(pa, "APIC", 44);
    put(pa + 36, LAPIC, 4);
    put(pa + 40, 1, 4); /* PC-AT compatible */
}

static void madt_entry(uint8_t type, uint8_t len, uint64_t a, unsigned a_off, unsigned a_len,
                       uint32_t flags, unsigned flags_off)
{
    uint64_t e = madt_pa + madt_len;

    memset(mem_bytes + e, 0, len);
    mem_bytes[e] = type;
    mem_bytes[e + 1] = len;
    if (a_len)
        put(e + a_off, a, a_len);
    if (flags_off)
        put(e + flags_off, flags, 4);
    madt_len += len;
}

static void madt_lapic(uint8_t apic_id, uint32_t flags)
{
    madt_entry(0, 8, apic_id, 3, 1, flags, 4);
}

static void madt_x2apic(uint32_t id, uint32_t flags)
{
    madt_entry(9, 16, id, 4, 4, flags, 8);
}

static void madt_end(void)
{
    put(madt_pa + 4, madt_len, 4);
    seal_table(madt_pa);
}

/* A MADT at pa with n enabled CPUs, APIC ids 0 .. n-1, and an I/O APIC. */
static void madt_cpus(uint64_t pa, unsigned n)
{
    madt_begin(pa);
    for (unsigned i = 0; i < n; i++)
        madt_lapic((uint8_t)i, 1);
    madt_entry(1, 12, 0xfec00000, 4, 4, 0, 0);
    madt_end();
}

/* A FADT of len bytes (116 in ACPI 1.0, 244 in 2.0) with PM_TMR_BLK
 * port, PM_TMR_LEN tmr_len and flags. */
static void fadt(uint64_t pa, uint32_t len, uint32_t port, uint8_t tmr_len, uint32_t flags)
{
    memset(mem_bytes + pa, 0, len);
    header(pa, "FACP", len);
    put(pa + 76, port, 4);
    mem_bytes[pa + 91] = tmr_len;
    put(pa + 112, flags, 4);
    seal_table(pa);
}

/* Its X_PM_TMR_BLK, a Generic Address Structure in address space space. */
static void fadt_x_block(uint64_t pa, uint8_t space, uint64_t addr)
{
    mem_bytes[pa + 208] = space;
    mem_bytes[pa + 209] = 32; /* register bit width */
    mem_bytes[pa + 211] = 3;  /* dword access */
    put(pa + 212, addr, 8);
    seal_table(pa);
}

/* QEMU's layout: RSDP v1, an RSDT listing a FACP (here ACPI 1.0's, with
 * a 24-bit PM timer at PM_PORT) and the MADT. */
static void machine_v1(unsigned n)
{
    const uint64_t tables[] = {FACP_PA, MADT_PA};

    fadt(FACP_PA, 116, PM_PORT, 4, 0);
    madt_cpus(MADT_PA, n);
    root_table(RSDT_PA, 4, tables, 2);
    rsdp_v1(RSDP_PA, RSDT_PA);
}

static int setup(void **state)
{
    (void)state;
    memset(mem_bytes, 0, sizeof(mem_bytes));
    memset(&cpus, 0x5a, sizeof(cpus));
    memset(&timer, 0x5a, sizeof(timer));
    return 0;
}

static void expect_error(const char *want)
{
    const char *err = acpi_parse_cpus(&mem, RSDP_PA, &cpus);

    if (!err || !strstr(err, want))
        fail_msg("expected an error with \"%s\", got \"%s\"", want, err ? err : "(none)");
}

static void expect_timer_error(const char *want)
{
    const char *err = acpi_parse_pm_timer(&mem, RSDP_PA, &timer);

    if (!err || !strstr(err, want))
        fail_msg("expected an error with \"%s\", got \"%s\"", want, err ? err : "(none)");
    assert_int_equal(timer.port, 0);
}

static void test_v1_rsdt_one_cpu(void **state)
{
    (void)state;
    machine_v1(1);
    assert_null(acpi_parse_cpus(&mem, RSDP_PA, &cpus));
    assert_int_equal(cpus.count, 1);
    assert_int_equal(cpus.apic_id[0], 0);
    assert_int_equal(cpus.lapic_base, LAPIC);
    assert_int_equal(cpus.ignored, 0);
}

/* The XSDT wins over the RSDT when the RSDP has both. */
static void test_v2_xsdt_four_cpus(void **state)
{
    const uint64_t old[] = {MADT2_PA}, tables[] = {FACP_PA, MADT_PA};

    (void)state;
    machine_v1(4);
    madt_cpus(MADT2_PA, 1);
    root_table(RSDT_PA, 4, old, 1);
    root_table(XSDT_PA, 8, tables, 2);
    rsdp_v2(RSDP_PA, RSDT_PA, XSDT_PA);
    assert_null(acpi_parse_cpus(&mem, RSDP_PA, &cpus));
    assert_int_equal(cpus.count, 4);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(cpus.apic_id[i], i);
}

/* A zero XSDT address leaves the RSDT in charge. */
static void test_v2_without_xsdt_uses_rsdt(void **state)
{
    (void)state;
    machine_v1(2);
    rsdp_v2(RSDP_PA, RSDT_PA, 0);
    assert_null(acpi_parse_cpus(&mem, RSDP_PA, &cpus));
    assert_int_equal(cpus.count, 2);
}

/* Disabled, and online-capable but not enabled: neither is started. */
static void test_disabled_cpus_skipped(void **state)
{
    const uint64_t tables[] = {MADT_PA};

    (void)state;
    madt_begin(MADT_PA);
    madt_lapic(0, 1);
    madt_lapic(1, 0);
    madt_lapic(2, 2);
    madt_lapic(3, 3);
    madt_end();
    root_table(RSDT_PA, 4, tables, 1);
    rsdp_v1(RSDP_PA, RSDT_PA);
    assert_null(acpi_parse_cpus(&mem, RSDP_PA, &cpus));
    assert_int_equal(cpus.count, 2);
    assert_int_equal(cpus.apic_id[0], 0);
    assert_int_equal(cpus.apic_id[1], 3);
    assert_int_equal(cpus.ignored, 0);
}

static void test_more_cpus_than_fit(void **state)
{
    (void)state;
    machine_v1(ACPI_MAX_CPUS + 3);
    assert_null(acpi_parse_cpus(&mem, RSDP_PA, &cpus));
    assert_int_equal(cpus.count, ACPI_MAX_CPUS);
    assert_int_equal(cpus.apic_id[ACPI_MAX_CPUS - 1], ACPI_MAX_CPUS - 1);
    assert_int_equal(cpus.ignored, 3);
}

/* x2APIC entries count when the xAPIC can address them; an id listed
 * twice is one CPU; the 64-bit override replaces the local APIC address. */
static void test_x2apic_and_override(void **state)
{
    const uint64_t tables[] = {MADT_PA};

    (void)state;
    madt_begin(MADT_PA);
    madt_lapic(0, 1);
    madt_x2apic(0, 1);
    madt_x2apic(7, 1);
    madt_x2apic(255, 1);
    madt_x2apic(300, 1);
    madt_x2apic(9, 0);
    madt_entry(5, 12, 0x1fee00000ull, 4, 8, 0, 0);
    madt_end();
    root_table(RSDT_PA, 4, tables, 1);
    rsdp_v1(RSDP_PA, RSDT_PA);
    assert_null(acpi_parse_cpus(&mem, RSDP_PA, &cpus));
    assert_int_equal(cpus.count, 2);
    assert_int_equal(cpus.apic_id[1], 7);
    assert_int_equal(cpus.ignored, 2);
    assert_int_equal(cpus.lapic_base, 0x1fee00000ull);
}

/* The BIOS area is searched on 16-byte boundaries, past broken candidates. */
static void test_find_rsdp_in_bios_area(void **state)
{
    uint64_t pa = 0;

    (void)state;
    assert_non_null(strstr(acpi_find_rsdp(&mem, &pa), "no RSDP"));
    machine_v1(1);
    /* Two false ones first: a bad checksum, and a copy off the 16-byte grid. */
    memcpy(mem_bytes + 0xe0000, "RSD PTR ", 8);
    memcpy(mem_bytes + RSDP_PA - 0x38, mem_bytes + RSDP_PA, 20);
    assert_null(acpi_find_rsdp(&mem, &pa));
    assert_int_equal(pa, RSDP_PA);
}

/* The first KiB of the EBDA comes first; its segment is the u16 at 0x40e. */
static void test_find_rsdp_in_ebda(void **state)
{
    uint64_t pa = 0;

    (void)state;
    machine_v1(1);
    put(0x40e, 0x9fc0, 2);
    memcpy(mem_bytes + 0x9fc00 + 0x3e0, mem_bytes + RSDP_PA, 20);
    assert_null(acpi_find_rsdp(&mem, &pa));
    assert_int_equal(pa, 0x9fc00 + 0x3e0);
}

/* The doors' wrapper: the CPU list and the PM timer into boot_info, each
 * with its own error, and a broken one leaving the other as it is. */
static void test_boot_tables(void **state)
{
    static struct boot_info bi;

    (void)state;
    machine_v1(3);
    acpi_boot_tables(&mem, 0, &bi);
    assert_null(bi.cpus_error);
    assert_int_equal(bi.nr_cpus, 3);
    assert_int_equal(bi.cpu_apic_id[2], 2);
    assert_int_equal(bi.lapic_base, LAPIC);
    assert_null(bi.pm_timer_error);
    assert_int_equal(bi.pm_timer_port, PM_PORT);
    assert_int_equal(bi.pm_timer_bits, 24);
    mem_bytes[MADT_PA + 50]++;
    acpi_boot_tables(&mem, RSDP_PA, &bi);
    assert_int_equal(bi.nr_cpus, 0);
    assert_non_null(strstr(bi.cpus_error, "MADT checksum is bad"));
    assert_int_equal(bi.pm_timer_port, PM_PORT);
    mem_bytes[FACP_PA + 50]++;
    acpi_boot_tables(&mem, RSDP_PA, &bi);
    assert_non_null(strstr(bi.cpus_error, "MADT checksum is bad"));
    assert_non_null(strstr(bi.pm_timer_error, "FADT checksum is bad"));
    assert_int_equal(bi.pm_timer_port, 0);
    assert_int_equal(bi.pm_timer_bits, 0);
    memset(mem_bytes, 0, sizeof(mem_bytes));
    acpi_boot_tables(&mem, 0, &bi);
    assert_non_null(strstr(bi.cpus_error, "no RSDP"));
    assert_non_null(strstr(bi.pm_timer_error, "no RSDP"));
}

/* ACPI 1.0's FADT: PM_TMR_BLK, 24 bits unless TMR_VAL_EXT says 32; bytes
 * past the table where a 2.0 FADT has X_PM_TMR_BLK are not read. */
static void test_pm_timer_v1(void **state)
{
    (void)state;
    machine_v1(1);
    assert_null(acpi_parse_pm_timer(&mem, RSDP_PA, &timer));
    assert_int_equal(timer.port, PM_PORT);
    assert_int_equal(timer.bits, 24);
    fadt(FACP_PA, 116, PM_PORT, 4, FADT_TMR_VAL_EXT);
    put(FACP_PA + 208, 1, 1);
    put(FACP_PA + 212, 0xb008, 8);
    assert_null(acpi_parse_pm_timer(&mem, RSDP_PA, &timer));
    assert_int_equal(timer.port, PM_PORT);
    assert_int_equal(timer.bits, 32);
}

/* ACPI 2.0's: a nonzero X_PM_TMR_BLK wins over PM_TMR_BLK (whose length
 * then does not matter); a zero one leaves PM_TMR_BLK in charge. */
static void test_pm_timer_x_block(void **state)
{
    const uint64_t tables[] = {MADT_PA, FADT2_PA};

    (void)state;
    machine_v1(1);
    root_table(XSDT_PA, 8, tables, 2);
    rsdp_v2(RSDP_PA, RSDT_PA, XSDT_PA);
    fadt(FADT2_PA, 244, PM_PORT, 0, 0);
    fadt_x_block(FADT2_PA, 1, 0xb008);
    assert_null(acpi_parse_pm_timer(&mem, RSDP_PA, &timer));
    assert_int_equal(timer.port, 0xb008);
    assert_int_equal(timer.bits, 24);
    fadt(FADT2_PA, 244, PM_PORT, 4, FADT_TMR_VAL_EXT);
    assert_null(acpi_parse_pm_timer(&mem, RSDP_PA, &timer));
    assert_int_equal(timer.port, PM_PORT);
    assert_int_equal(timer.bits, 32);
    fadt_x_block(FADT2_PA, 1, 0xfffc); /* the last port with 4 bytes to read */
    assert_null(acpi_parse_pm_timer(&mem, RSDP_PA, &timer));
    assert_int_equal(timer.port, 0xfffc);
}

static void test_pm_timer_none(void **state)
{
    const uint64_t no_fadt[] = {MADT_PA};

    (void)state;
    machine_v1(1);
    fadt(FACP_PA, 116, 0, 0, 0);
    expect_timer_error("FADT lists no PM timer");
    fadt(FACP_PA, 116, PM_PORT, 4, FADT_HW_REDUCED);
    expect_timer_error("FADT says hardware-reduced ACPI: no PM timer");
    root_table(RSDT_PA, 4, no_fadt, 1);
    expect_timer_error("no FADT in the RSDT");
}

static void test_pm_timer_errors(void **state)
{
    const uint64_t tables[] = {FADT2_PA};

    (void)state;
    machine_v1(1);
    fadt(FACP_PA, 116, PM_PORT, 2, 0);
    expect_timer_error("FADT PM_TMR_LEN is 2, not 4");
    fadt(FACP_PA, 116, 0xfffd, 4, 0);
    expect_timer_error("FADT PM timer port 0xfffd is past the I/O space");
    fadt(FACP_PA, 116, PM_PORT, 4, 0);
    mem_bytes[FACP_PA + 76]++;
    expect_timer_error("FADT checksum is bad");
    fadt(FACP_PA, 36, PM_PORT, 4, 0);
    expect_timer_error("FADT length 36 is shorter than 116");
    put(FACP_PA + 4, MEM_LEN, 4);
    expect_timer_error("FADT at 0x100200 runs past the end of memory");
    root_table(RSDT_PA, 4, tables, 1);
    fadt(FADT2_PA, 244, PM_PORT, 4, 0);
    fadt_x_block(FADT2_PA, 0, 0xfed000f0);
    expect_timer_error("FADT X_PM_TMR_BLK is in address space 0, not system I/O");
    fadt_x_block(FADT2_PA, 1, 0x1fffe);
    expect_timer_error("FADT PM timer port 0x1fffe is past the I/O space");
    /* A 2.0 FADT cut off inside X_PM_TMR_BLK: the block is not read. */
    fadt(FADT2_PA, 219, PM_PORT, 4, 0);
    put(FADT2_PA + 208, 1, 1);
    put(FADT2_PA + 212, 0xb008, 8);
    seal_table(FADT2_PA);
    assert_null(acpi_parse_pm_timer(&mem, RSDP_PA, &timer));
    assert_int_equal(timer.port, PM_PORT);
}

static void test_rsdp_errors(void **state)
{
    (void)state;
    machine_v1(1);
    assert_non_null(strstr(acpi_parse_cpus(&mem, MEM_LEN - 10, &cpus), "outside memory"));
    mem_bytes[RSDP_PA + 16]++; /* RSDT address, after sealing */
    expect_error("RSDP checksum is bad");
    machine_v1(1);
    mem_bytes[RSDP_PA]++;
    seal(RSDP_PA, 20, 8);
    expect_error("wrong signature");
}

static void test_rsdp_v2_errors(void **state)
{
    (void)state;
    machine_v1(1);
    rsdp_v2(RSDP_PA, RSDT_PA, XSDT_PA);
    mem_bytes[RSDP_PA + 24]++; /* XSDT address, after sealing */
    expect_error("RSDP extended checksum is bad");
    put(RSDP_PA + 20, 20, 4);
    seal(RSDP_PA, 20, 8);
    expect_error("RSDP length 20 is shorter than 36");
    rsdp_v2(MEM_LEN - 40, RSDT_PA, XSDT_PA);
    put(MEM_LEN - 40 + 20, 64, 4);
    seal(MEM_LEN - 40, 20, 8);
    assert_non_null(strstr(acpi_parse_cpus(&mem, MEM_LEN - 40, &cpus), "RSDP runs past the end"));
}

static void test_root_table_errors(void **state)
{
    (void)state;
    machine_v1(1);
    mem_bytes[RSDT_PA + 36]++;
    expect_error("RSDT checksum is bad");
    machine_v1(1);
    rsdp_v1(RSDP_PA, MEM_LEN - 8);
    expect_error("RSDT at 0x10fff8 is outside memory");
    rsdp_v1(RSDP_PA, FACP_PA);
    expect_error("RSDT at 0x100200 has the wrong signature");
    rsdp_v1(RSDP_PA, RSDT_PA);
    put(RSDT_PA + 4, 30, 4);
    seal_table(RSDT_PA);
    expect_error("RSDT length 30 is shorter than 36");
    put(RSDT_PA + 4, 46, 4);
    seal_table(RSDT_PA);
    expect_error("RSDT length 46 ends inside an entry");
    put(RSDT_PA + 4, MEM_LEN, 4);
    expect_error("RSDT at 0x100000 runs past the end of memory");
}

static void test_root_entry_errors(void **state)
{
    const uint64_t outside[] = {FACP_PA, 0x200000}, no_madt[] = {FACP_PA};

    (void)state;
    machine_v1(1);
    root_table(RSDT_PA, 4, outside, 2);
    expect_error("RSDT entry 1 at 0x200000 is outside memory");
    root_table(RSDT_PA, 4, no_madt, 1);
    expect_error("no MADT in the RSDT");
    root_table(XSDT_PA, 8, no_madt, 1);
    rsdp_v2(RSDP_PA, RSDT_PA, XSDT_PA);
    expect_error("no MADT in the XSDT");
}

static void test_madt_table_errors(void **state)
{
    (void)state;
    machine_v1(1);
    mem_bytes[MADT_PA + 47]++; /* the first entry's APIC id, after sealing */
    expect_error("MADT checksum is bad");
    put(MADT_PA + 4, 40, 4);
    seal_table(MADT_PA);
    expect_error("MADT length 40 is shorter than 44");
    put(MADT_PA + 4, MEM_LEN - MADT_PA + 1, 4);
    expect_error("MADT at 0x100300 runs past the end of memory");
}

/* A MADT whose one entry after a CPU is len bytes long but says elen. */
static void madt_bad_entry(uint8_t type, uint8_t elen, uint32_t len)
{
    madt_begin(MADT_PA);
    madt_lapic(0, 1);
    mem_bytes[MADT_PA + madt_len] = type;
    mem_bytes[MADT_PA + madt_len + 1] = elen;
    madt_len += len;
    madt_end();
}

static void test_madt_entry_errors(void **state)
{
    (void)state;
    machine_v1(1);
    madt_bad_entry(1, 0, 12);
    expect_error("MADT entry at offset 52 has length 0");
    madt_bad_entry(1, 1, 12);
    expect_error("MADT entry at offset 52 has length 1");
    madt_bad_entry(1, 13, 12);
    expect_error("MADT entry at offset 52 runs past the table");
    madt_bad_entry(0, 1, 1);
    expect_error("MADT entry at offset 52 runs past the table");
    madt_bad_entry(0, 4, 4);
    expect_error("MADT entry at offset 52 is too short for type 0");
    madt_bad_entry(9, 12, 12);
    expect_error("MADT entry at offset 52 is too short for type 9");
    madt_bad_entry(5, 8, 8);
    expect_error("MADT entry at offset 52 is too short for type 5");
}

static void test_no_usable_cpu(void **state)
{
    (void)state;
    machine_v1(0);
    expect_error("MADT lists no enabled CPU");
    madt_begin(MADT_PA);
    madt_lapic(0, 0);
    madt_x2apic(256, 1);
    madt_end();
    expect_error("MADT lists no CPU with an APIC id below 255");
    machine_v1(1);
    put(MADT_PA + 36, 0, 4);
    seal_table(MADT_PA);
    expect_error("MADT gives no local APIC address");
}

/* Multiboot2 tags {u32 type, u32 size, body} padded to 8 bytes. */
static size_t mb2_tag(uint8_t *p, uint32_t type, uint32_t size)
{
    memset(p, 0, (size + 7) & ~7u);
    memcpy(p, &type, 4);
    memcpy(p + 4, &size, 4);
    return (size + 7) & ~7u;
}

static size_t mb2_block(uint8_t *b, const uint32_t (*tags)[2], unsigned n)
{
    size_t off = 8;
    uint32_t total;

    for (unsigned i = 0; i < n; i++)
        off += mb2_tag(b + off, tags[i][0], tags[i][1]);
    off += mb2_tag(b + off, 0, 8);
    total = (uint32_t)off;
    memcpy(b, &total, 4);
    return off;
}

/* Tag 15 (ACPI 2.0+) wins over tag 14; a tag too short for an RSDP is no RSDP. */
static void test_mb2_acpi_rsdp(void **state)
{
    static const uint32_t both[][2] = {{1, 12}, {14, 28}, {15, 44}};
    static const uint32_t old[][2] = {{14, 28}}, short_tags[][2] = {{14, 27}, {15, 43}};
    uint8_t b[256];
    size_t len;

    (void)state;
    len = mb2_block(b, both, 3);
    assert_int_equal(mb2_acpi_rsdp(b, len), 8 + 16 + 32 + 8);
    len = mb2_block(b, old, 1);
    assert_int_equal(mb2_acpi_rsdp(b, len), 8 + 8);
    len = mb2_block(b, short_tags, 2);
    assert_int_equal(mb2_acpi_rsdp(b, len), 0);
    assert_int_equal(mb2_acpi_rsdp(b, 4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_v1_rsdt_one_cpu, setup),
        cmocka_unit_test_setup(test_v2_xsdt_four_cpus, setup),
        cmocka_unit_test_setup(test_v2_without_xsdt_uses_rsdt, setup),
        cmocka_unit_test_setup(test_disabled_cpus_skipped, setup),
        cmocka_unit_test_setup(test_more_cpus_than_fit, setup),
        cmocka_unit_test_setup(test_x2apic_and_override, setup),
        cmocka_unit_test_setup(test_find_rsdp_in_bios_area, setup),
        cmocka_unit_test_setup(test_find_rsdp_in_ebda, setup),
        cmocka_unit_test_setup(test_boot_tables, setup),
        cmocka_unit_test_setup(test_pm_timer_v1, setup),
        cmocka_unit_test_setup(test_pm_timer_x_block, setup),
        cmocka_unit_test_setup(test_pm_timer_none, setup),
        cmocka_unit_test_setup(test_pm_timer_errors, setup),
        cmocka_unit_test_setup(test_rsdp_errors, setup),
        cmocka_unit_test_setup(test_rsdp_v2_errors, setup),
        cmocka_unit_test_setup(test_root_table_errors, setup),
        cmocka_unit_test_setup(test_root_entry_errors, setup),
        cmocka_unit_test_setup(test_madt_table_errors, setup),
        cmocka_unit_test_setup(test_madt_entry_errors, setup),
        cmocka_unit_test_setup(test_no_usable_cpu, setup),
        cmocka_unit_test_setup(test_mb2_acpi_rsdp, setup),
    };

    setvbuf(stdout, NULL, _IONBF, 0);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
