/* The multiboot2 entry path, in C: boot/multiboot2.asm has checked the
 * loader magic and brought us to long mode with GRUB's boot information,
 * which kernel/mb2_parse.c reads without trusting it (and a fuzzer checks
 * that it never can be made to read outside the block); kernel/acpi_parse.c
 * then reads the CPU list and the PM timer from ACPI the same way. */
#include <stdint.h>

#include "arch/x86/boot_map.h"
#include "arch/x86/native/backend.h"
#include "kernel/acpi_parse.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"
#include "kernel/mb2_parse.h"

void multiboot2_start(uint32_t info_pa, uint32_t magic)
{
    const struct boot_mem low = boot_mem_low();
    const uint8_t *info = (const uint8_t *)(uintptr_t)info_pa;
    /* Multiboot2: the block starts with its own total size. */
    const size_t len = *(const uint32_t *)info;
    size_t rsdp_off;
    const char *err;

    (void)magic;
    native_install();
    boot_info.method = BOOT_NATIVE_MULTIBOOT2;
    err = mb2_parse(info, len, &boot_info);
    if (err)
        panic("multiboot2 information at 0x%x: %s", info_pa, err);
    /* Now, while the boot tables still map the low 4 GiB the ACPI tables
     * are in; GRUB's copy of the RSDP is as good as the firmware's. */
    rsdp_off = mb2_acpi_rsdp(info, len);
    acpi_boot_tables(&low, rsdp_off ? info_pa + rsdp_off : 0, &boot_info);
    kernel_main();
}
