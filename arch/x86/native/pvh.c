/* The PVH entry path, in C: boot/pvh.asm has brought us to long mode with
 * the physical address of Xen's struct hvm_start_info, which
 * kernel/pvh_parse.c reads without trusting it (and a fuzzer checks that
 * it never can be made to read outside memory); kernel/acpi_parse.c then
 * reads the CPU list and the PM timer from ACPI the same way. */
#include <stdint.h>
#include <xen/xen.h>
#include <xen/arch-x86/hvm/start_info.h>

#include "arch/x86/native/backend.h"
#include "kernel/acpi_parse.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"
#include "kernel/pvh_parse.h"

/* What the boot tables map (boot/long_mode.asm): the low 4 GiB. QEMU puts
 * the memory map in page 0, so the window starts just past address 0 only
 * to keep a null pointer out of it. */
#define LOW_MAPPED_START 0x8ULL
#define LOW_MAPPED_END (4ULL << 30)

/* The RSDP the start info gives, or 0 (none given) to look for it. */
static uint64_t start_info_rsdp(const struct boot_mem *low, uint32_t start_info_pa)
{
    const uint8_t *p = boot_mem_at(low, start_info_pa, sizeof(struct hvm_start_info));
    struct hvm_start_info si;

    if (!p)
        return 0;
    memcpy(&si, p, sizeof(si));
    return si.version >= 1 ? si.rsdp_paddr : 0;
}

void pvh_start(uint32_t start_info_pa, uint32_t unused)
{
    const struct boot_mem low = {(const uint8_t *)(uintptr_t)LOW_MAPPED_START, LOW_MAPPED_START,
                                 LOW_MAPPED_END - LOW_MAPPED_START};
    const char *err;

    (void)unused;
    native_install();
    boot_info.method = BOOT_NATIVE_PVH;
    err = pvh_parse(&low, start_info_pa, &boot_info);
    if (err)
        panic("PVH start info at 0x%x: %s", start_info_pa, err);
    /* Now, while the boot tables still map the low 4 GiB the ACPI tables are in. */
    acpi_boot_tables(&low, start_info_rsdp(&low, start_info_pa), &boot_info);
    kernel_main();
}
