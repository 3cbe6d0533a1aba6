/* The native PVH entry path, in C: arch/x86/pvh.c found no Xen beneath
 * us, so QEMU loaded us, and hands over the physical address of its
 * struct hvm_start_info, which kernel/pvh_parse.c reads without trusting
 * it (and a fuzzer checks that it never can be made to read outside
 * memory); kernel/acpi_parse.c then reads the CPU list and the PM timer
 * from ACPI the same way. The KVM backend boots through here too: under
 * KVM it is QEMU's loader all the same. */
#include <stdint.h>

#include "arch/x86/boot_map.h"
#include "arch/x86/native/backend.h"
#include "kernel/acpi_parse.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"
#include "kernel/pvh_parse.h"

void native_pvh_start(uint32_t start_info_pa)
{
    native_install();
    native_pvh_boot(start_info_pa, BOOT_NATIVE_PVH);
}

/* What QEMU's PVH loader handed over, read the same way for every
 * backend that runs on its machine (natively, under KVM). */
void native_pvh_boot(uint32_t start_info_pa, enum boot_method method)
{
    const struct boot_mem low = boot_mem_low();
    struct pvh_start si;
    const char *err;

    boot_info.method = method;
    err = pvh_parse(&low, start_info_pa, false, &boot_info, &si);
    if (err)
        panic("PVH start info at 0x%x: %s", start_info_pa, err);
    /* Now, while the boot tables still map the low 4 GiB the ACPI tables are in. */
    acpi_boot_tables(&low, si.rsdp_paddr, &boot_info);
    kernel_main();
}
