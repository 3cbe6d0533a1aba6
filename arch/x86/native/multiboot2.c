/* The multiboot2 entry path, in C: boot/multiboot2.asm has checked the
 * loader magic and brought us to long mode with GRUB's boot information,
 * which kernel/mb2_parse.c reads without trusting it (and a fuzzer checks
 * that it never can be made to read outside the block). */
#include <stdint.h>

#include "arch/x86/native/backend.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"
#include "kernel/mb2_parse.h"

void multiboot2_start(uint32_t info_pa, uint32_t magic)
{
    const uint8_t *info = (const uint8_t *)(uintptr_t)info_pa;
    const char *err;

    (void)magic;
    native_install();
    boot_info.method = BOOT_NATIVE_MULTIBOOT2;
    /* Multiboot2: the block starts with its own total size. */
    err = mb2_parse(info, *(const uint32_t *)info, &boot_info);
    if (err)
        panic("multiboot2 information at 0x%x: %s", info_pa, err);
    kernel_main();
}
