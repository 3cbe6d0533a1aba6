/* Which CPUs the machine has, and where its ACPI PM timer is, from
 * ACPI's tables (RSDP, then the RSDT or XSDT, then the MADT and the FADT),
 * read without trusting them: every table must lie inside the memory
 * window given, with its checksum right, so a broken table is an error,
 * never a wild read. The native doors use it; Xen PV guests learn their
 * vCPUs and their clock from Xen instead. */
#ifndef KERNEL_ACPI_PARSE_H
#define KERNEL_ACPI_PARSE_H

#include <stdint.h>

#include "kernel/boot_info.h"
#include "kernel/boot_mem.h"
#include "kernel/percpu.h"

#define ACPI_MAX_CPUS MAX_CPUS

struct acpi_cpus {
    unsigned count;                 /* enabled CPUs listed in apic_id */
    uint8_t apic_id[ACPI_MAX_CPUS]; /* in MADT order; QEMU lists the boot CPU first */
    uint64_t lapic_base;            /* physical address of the local APICs */
    unsigned ignored; /* enabled CPUs left out: beyond ACPI_MAX_CPUS, or APIC id >= 255 */
};

#define ACPI_PM_TIMER_HZ 3579545 /* ACPI 6.4 4.8.3.3: the PM timer counts at 3.579545 MHz */

/* The ACPI PM timer: a counter at ACPI_PM_TIMER_HZ that wraps at 2^bits. */
struct acpi_pm_timer {
    uint16_t port; /* its system I/O port; 4 bytes wide */
    uint8_t bits;  /* 24 or 32 */
};

/* Looks for the RSDP where BIOS firmware leaves it (the first KiB of the
 * EBDA, then 0xe0000-0xfffff). Returns NULL with *rsdp_pa set, or why not. */
const char *acpi_find_rsdp(const struct boot_mem *mem, uint64_t *rsdp_pa);

/* Lists the enabled CPUs of the MADT that the RSDP at rsdp_pa leads to.
 * Which one is the boot CPU is for the caller to see, by its own APIC id.
 * Returns NULL, or one line saying what is malformed (out may then be
 * partly filled); the line stays valid until this function's next call. */
const char *acpi_parse_cpus(const struct boot_mem *mem, uint64_t rsdp_pa, struct acpi_cpus *out);

/* The PM timer the FADT that the RSDP at rsdp_pa leads to describes.
 * Returns NULL, or one line saying why there is none or what is
 * malformed; the line stays valid until this function's next call. */
const char *acpi_parse_pm_timer(const struct boot_mem *mem, uint64_t rsdp_pa,
                                struct acpi_pm_timer *out);

/* For the native doors: from the loader's RSDP, or from the one
 * acpi_find_rsdp() finds if rsdp_pa is 0, fills bi's CPU list and its PM
 * timer. Each on failure is left empty with its error set
 * (bi->cpus_error, bi->pm_timer_error). */
void acpi_boot_tables(const struct boot_mem *mem, uint64_t rsdp_pa, struct boot_info *bi);

#endif
