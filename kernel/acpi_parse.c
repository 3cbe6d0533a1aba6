/* ACPI layouts (ACPI 6.4, section 5.2), all little-endian:
 *   RSDP: "RSD PTR " @0, checksum @8 (over 20 bytes), revision @15, RSDT
 *         address u32 @16; revision 2+ adds length u32 @20, XSDT address
 *         u64 @24 and an extended checksum @32 (over length bytes).
 *   Other tables: a 36-byte header, signature[4] @0, length u32 @4; all
 *         length bytes sum to 0 (mod 256).
 *   RSDT/XSDT: the header, then u32/u64 addresses of the other tables.
 *   MADT ("APIC"): the header, local APIC address u32 @36, flags u32 @40,
 *         then entries { u8 type, u8 length, ... } from @44.
 *   FADT ("FACP", 5.2.9): PM_TMR_BLK u32 @76, PM_TMR_LEN u8 @91, flags
 *         u32 @112 (116 bytes in ACPI 1.0); X_PM_TMR_BLK @208, a Generic
 *         Address Structure (5.2.3.2: address space u8 @0, address u64 @4),
 *         in FADTs of 220 bytes or more. */
#include "kernel/acpi_parse.h"

#include <stdarg.h>
#include <stdbool.h>

#include "kernel/printf.h"

#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36
#define SDT_HEADER_LEN 36
#define MADT_HEADER_LEN 44
#define FADT_V1_LEN 116
#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_X_PM_TMR_BLK 208
#define GAS_LEN 12
#define GAS_SYSTEM_IO 1
#define FADT_TMR_VAL_EXT (1u << 8)      /* the PM timer has 32 bits, not 24 */
#define FADT_HW_REDUCED_ACPI (1u << 20) /* no fixed hardware: no PM timer either */
#define PM_TIMER_BLOCK_LEN 4            /* ACPI 6.4 5.2.9: PM_TMR_LEN must be 4 */
#define IO_PORT_LAST 0xffff

#define MADT_LAPIC 0
#define MADT_LAPIC_OVERRIDE 5
#define MADT_X2APIC 9
#define MADT_ENABLED 1u
/* The xAPIC broadcast id: a CPU's id must be below it to be sent an IPI. */
#define XAPIC_BROADCAST 0xff

#define EBDA_SEGMENT_PTR 0x40e
#define EBDA_SCAN_LEN 1024
#define BIOS_AREA_START 0xe0000ull
#define BIOS_AREA_END 0x100000ull

/* A table the walk has checked: len bytes at p, all inside memory. */
struct table {
    const uint8_t *p;
    uint32_t len;
};

/* Each public parse keeps its own line, so the CPU list's error survives
 * the PM timer's parse. */
#define ERROR_LINE_LEN 80
static char cpus_error_line[ERROR_LINE_LEN], pm_timer_error_line[ERROR_LINE_LEN];
static char *error_line = cpus_error_line;

/* Errors name offsets and addresses, so they are formatted; one at a time. */
__attribute__((format(printf, 1, 2))) static const char *fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    kvsnprintf(error_line, ERROR_LINE_LEN, fmt, ap);
    va_end(ap);
    return error_line;
}

/* ACPI 6.4 5.2.5.3, 5.2.6: a structure is intact when its bytes sum to 0. */
static uint8_t checksum(const uint8_t *p, uint64_t len)
{
    uint8_t sum = 0;

    while (len--)
        sum += *p++;
    return sum;
}

/* ACPI 6.4 5.2.5.1: the RSDP sits on a 16-byte boundary; its signature
 * and 20-byte checksum are what tell it from other bytes. */
static bool scan_rsdp(const struct boot_mem *mem, uint64_t start, uint64_t end, uint64_t *rsdp_pa)
{
    for (uint64_t pa = start; pa < end; pa += 16) {
        const uint8_t *p = boot_mem_at(mem, pa, RSDP_V1_LEN);
        if (p && memcmp(p, "RSD PTR ", 8) == 0 && checksum(p, RSDP_V1_LEN) == 0) {
            *rsdp_pa = pa;
            return true;
        }
    }
    return false;
}

const char *acpi_find_rsdp(const struct boot_mem *mem, uint64_t *rsdp_pa)
{
    const uint8_t *seg = boot_mem_at(mem, EBDA_SEGMENT_PTR, 2);

    /* ACPI 6.4 5.2.5.1: the EBDA's real-mode segment is the u16 at 0x40e. */
    if (seg) {
        uint64_t ebda = (uint64_t)(seg[0] | seg[1] << 8) << 4;
        if (ebda && scan_rsdp(mem, ebda, ebda + EBDA_SCAN_LEN, rsdp_pa))
            return NULL;
    }
    if (scan_rsdp(mem, BIOS_AREA_START, BIOS_AREA_END, rsdp_pa))
        return NULL;
    return "no RSDP in the EBDA or the BIOS area";
}

/* Checks the RSDP and says where the root table is: the XSDT (8-byte
 * entries) if the RSDP has one, else the RSDT (4-byte entries). */
static const char *read_rsdp(const struct boot_mem *mem, uint64_t pa, uint64_t *root_pa,
                             unsigned *entry_len)
{
    const uint8_t *p = boot_mem_at(mem, pa, RSDP_V1_LEN);
    uint32_t len;

    if (!p)
        return fail("RSDP at 0x%lx is outside memory", pa);
    if (memcmp(p, "RSD PTR ", 8) != 0)
        return fail("RSDP at 0x%lx has the wrong signature", pa);
    if (checksum(p, RSDP_V1_LEN) != 0)
        return "RSDP checksum is bad";
    *root_pa = boot_load32(p + 16);
    *entry_len = 4;
    /* ACPI 6.4 5.2.5.3: revision 0 is ACPI 1.0, with neither length nor XSDT. */
    if (p[15] < 2)
        return NULL;
    p = boot_mem_at(mem, pa, RSDP_V2_LEN);
    if (!p)
        return "RSDP runs past the end of memory";
    len = boot_load32(p + 20);
    if (len < RSDP_V2_LEN)
        return fail("RSDP length %u is shorter than %u", len, RSDP_V2_LEN);
    p = boot_mem_at(mem, pa, len);
    if (!p)
        return "RSDP runs past the end of memory";
    if (checksum(p, len) != 0)
        return "RSDP extended checksum is bad";
    /* A zero XSDT address leaves the RSDT in charge, as on ACPI 1.0. */
    if (boot_load64(p + 24)) {
        *root_pa = boot_load64(p + 24);
        *entry_len = 8;
    }
    return NULL;
}

/* The table at pa, named name in errors: its signature sig, a length of at
 * least min bytes, all inside memory, and a zero checksum. */
static const char *read_table(const struct boot_mem *mem, uint64_t pa, const char *sig,
                              const char *name, uint32_t min, struct table *t)
{
    const uint8_t *p = boot_mem_at(mem, pa, SDT_HEADER_LEN);

    if (!p)
        return fail("%s at 0x%lx is outside memory", name, pa);
    if (memcmp(p, sig, 4) != 0)
        return fail("%s at 0x%lx has the wrong signature", name, pa);
    t->len = boot_load32(p + 4);
    if (t->len < min)
        return fail("%s length %u is shorter than %u", name, t->len, min);
    t->p = boot_mem_at(mem, pa, t->len);
    if (!t->p)
        return fail("%s at 0x%lx runs past the end of memory", name, pa);
    if (checksum(t->p, t->len) != 0)
        return fail("%s checksum is bad", name);
    return NULL;
}

/* The root table (named root_name in errors) of the RSDP at rsdp_pa. */
static const char *read_root(const struct boot_mem *mem, uint64_t rsdp_pa, struct table *root,
                             unsigned *entry_len, const char **root_name)
{
    uint64_t root_pa = 0;
    const char *err;

    *entry_len = 4;
    err = read_rsdp(mem, rsdp_pa, &root_pa, entry_len);
    if (err)
        return err;
    *root_name = *entry_len == 8 ? "XSDT" : "RSDT";
    return read_table(mem, root_pa, *root_name, *root_name, SDT_HEADER_LEN, root);
}

/* Finds the table with signature sig (named name, at least min bytes)
 * among the root table's entries; the other tables are not ours to check,
 * but each must at least be in memory. */
static const char *find_table(const struct boot_mem *mem, const struct table *root,
                              unsigned entry_len, const char *root_name, const char *sig,
                              const char *name, uint32_t min, struct table *t)
{
    if ((root->len - SDT_HEADER_LEN) % entry_len != 0)
        return fail("%s length %u ends inside an entry", root_name, root->len);
    for (uint32_t off = SDT_HEADER_LEN; off < root->len; off += entry_len) {
        const uint8_t *e = root->p + off;
        uint64_t pa = entry_len == 8 ? boot_load64(e) : boot_load32(e);
        const uint8_t *found = boot_mem_at(mem, pa, 4);
        if (!found)
            return fail("%s entry %u at 0x%lx is outside memory", root_name,
                        (off - SDT_HEADER_LEN) / entry_len, pa);
        if (memcmp(found, sig, 4) == 0)
            return read_table(mem, pa, sig, name, min, t);
    }
    return fail("no %s in the %s", name, root_name);
}

/* One enabled CPU. The same id twice (a type 0 and a type 9 entry) is one
 * CPU; one the xAPIC cannot address, or one past the array, is counted. */
static void add_cpu(struct acpi_cpus *out, uint32_t apic_id)
{
    if (apic_id >= XAPIC_BROADCAST) {
        out->ignored++;
        return;
    }
    for (unsigned i = 0; i < out->count; i++)
        if (out->apic_id[i] == apic_id)
            return;
    if (out->count == ACPI_MAX_CPUS) {
        out->ignored++;
        return;
    }
    out->apic_id[out->count++] = (uint8_t)apic_id;
}

/* One MADT entry of len >= 2 bytes, at offset off in the table. */
static const char *read_madt_entry(const uint8_t *e, uint8_t len, uint32_t off,
                                   struct acpi_cpus *out)
{
    /* ACPI 6.4 5.2.12.2, 5.2.12.8, 5.2.12.12: the fixed lengths of types 0, 5 and 9. */
    static const uint8_t min_len[] = {
        [MADT_LAPIC] = 8, [MADT_LAPIC_OVERRIDE] = 12, [MADT_X2APIC] = 16};

    if (e[0] < sizeof(min_len) && len < min_len[e[0]])
        return fail("MADT entry at offset %u is too short for type %u", off, e[0]);
    switch (e[0]) {
    case MADT_LAPIC: /* u8 processor uid @2, u8 APIC id @3, u32 flags @4 */
        if (boot_load32(e + 4) & MADT_ENABLED)
            add_cpu(out, e[3]);
        break;
    case MADT_LAPIC_OVERRIDE: /* u16 reserved @2, u64 address @4 */
        out->lapic_base = boot_load64(e + 4);
        break;
    case MADT_X2APIC: /* u16 reserved @2, u32 x2APIC id @4, u32 flags @8 */
        if (boot_load32(e + 8) & MADT_ENABLED)
            add_cpu(out, boot_load32(e + 4));
        break;
    }
    return NULL;
}

/* Walks the MADT's entries, each of which must lie inside the table. */
static const char *read_madt(const struct table *madt, struct acpi_cpus *out)
{
    uint32_t off = MADT_HEADER_LEN;

    out->lapic_base = boot_load32(madt->p + 36);
    while (off < madt->len) {
        const uint8_t *e = madt->p + off;
        const char *err;
        if (madt->len - off < 2 || e[1] > madt->len - off)
            return fail("MADT entry at offset %u runs past the table", off);
        /* An entry shorter than its own type and length bytes would never advance. */
        if (e[1] < 2)
            return fail("MADT entry at offset %u has length %u", off, e[1]);
        err = read_madt_entry(e, e[1], off, out);
        if (err)
            return err;
        off += e[1];
    }
    return NULL;
}

const char *acpi_parse_cpus(const struct boot_mem *mem, uint64_t rsdp_pa, struct acpi_cpus *out)
{
    struct table root, madt;
    unsigned entry_len;
    const char *name = 0, *err;

    error_line = cpus_error_line;
    memset(out, 0, sizeof(*out));
    err = read_root(mem, rsdp_pa, &root, &entry_len, &name);
    if (err)
        return err;
    err = find_table(mem, &root, entry_len, name, "APIC", "MADT", MADT_HEADER_LEN, &madt);
    if (err)
        return err;
    err = read_madt(&madt, out);
    if (err)
        return err;
    if (out->count == 0)
        return out->ignored ? "MADT lists no CPU with an APIC id below 255"
                            : "MADT lists no enabled CPU";
    if (out->lapic_base == 0)
        return "MADT gives no local APIC address";
    return NULL;
}

/* ACPI 6.4 5.2.9: a nonzero X_PM_TMR_BLK overrides PM_TMR_BLK; with
 * HW_REDUCED_ACPI set, both are to be ignored. Only a port in the system
 * I/O space is taken: a memory-mapped timer would need a mapping. */
static const char *read_pm_timer(const struct table *fadt, struct acpi_pm_timer *out)
{
    uint32_t flags = boot_load32(fadt->p + FADT_FLAGS);
    uint64_t port = boot_load32(fadt->p + FADT_PM_TMR_BLK);
    const uint8_t *gas = fadt->p + FADT_X_PM_TMR_BLK;

    if (flags & FADT_HW_REDUCED_ACPI)
        return "FADT says hardware-reduced ACPI: no PM timer";
    if (fadt->len >= FADT_X_PM_TMR_BLK + GAS_LEN && boot_load64(gas + 4)) {
        if (gas[0] != GAS_SYSTEM_IO)
            return fail("FADT X_PM_TMR_BLK is in address space %u, not system I/O", gas[0]);
        port = boot_load64(gas + 4);
    } else if (port == 0) {
        return "FADT lists no PM timer";
    } else if (fadt->p[FADT_PM_TMR_LEN] != PM_TIMER_BLOCK_LEN) {
        return fail("FADT PM_TMR_LEN is %u, not %u", fadt->p[FADT_PM_TMR_LEN], PM_TIMER_BLOCK_LEN);
    }
    if (port > IO_PORT_LAST + 1 - PM_TIMER_BLOCK_LEN)
        return fail("FADT PM timer port 0x%lx is past the I/O space", port);
    out->port = (uint16_t)port;
    out->bits = flags & FADT_TMR_VAL_EXT ? 32 : 24;
    return NULL;
}

const char *acpi_parse_pm_timer(const struct boot_mem *mem, uint64_t rsdp_pa,
                                struct acpi_pm_timer *out)
{
    struct table root, fadt;
    unsigned entry_len;
    const char *name = 0, *err;

    error_line = pm_timer_error_line;
    memset(out, 0, sizeof(*out));
    err = read_root(mem, rsdp_pa, &root, &entry_len, &name);
    if (err)
        return err;
    err = find_table(mem, &root, entry_len, name, "FACP", "FADT", FADT_V1_LEN, &fadt);
    if (err)
        return err;
    err = read_pm_timer(&fadt, out);
    if (err)
        memset(out, 0, sizeof(*out));
    return err;
}

_Static_assert(sizeof(((struct boot_info *)0)->cpu_apic_id) == ACPI_MAX_CPUS,
               "boot_info keeps every CPU the parser lists");

void acpi_boot_tables(const struct boot_mem *mem, uint64_t rsdp_pa, struct boot_info *bi)
{
    struct acpi_cpus cpus;
    struct acpi_pm_timer timer = {0, 0};
    const char *err = NULL;

    if (rsdp_pa == 0)
        err = acpi_find_rsdp(mem, &rsdp_pa);
    bi->cpus_error = err ? err : acpi_parse_cpus(mem, rsdp_pa, &cpus);
    if (bi->cpus_error)
        memset(&cpus, 0, sizeof(cpus));
    bi->nr_cpus = cpus.count;
    memcpy(bi->cpu_apic_id, cpus.apic_id, sizeof(bi->cpu_apic_id));
    bi->lapic_base = cpus.lapic_base;
    bi->nr_cpus_ignored = cpus.ignored;
    bi->pm_timer_error = err ? err : acpi_parse_pm_timer(mem, rsdp_pa, &timer);
    bi->pm_timer_port = timer.port;
    bi->pm_timer_bits = timer.bits;
}
