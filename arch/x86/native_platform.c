#include "arch/x86/native_platform.h"

#include "arch/x86/cpu.h"
#include "arch/x86/descriptors.h"
#include "arch/x86/native_ops.h"
#include "arch/x86/serial.h"
#include "mm/kernel_map.h"
#include "pv/platform_ops.h"

#define DEBUG_EXIT_PORT 0xf4 /* QEMU -device isa-debug-exit,iobase=0xf4 */
#define KBC_COMMAND_PORT 0x64
#define KBC_PULSE_RESET 0xfe

/* QEMU exits with (status << 1) | 1. Without that device we fall back to a
 * reset, which QEMU's -no-reboot also turns into an exit; the verdict line
 * has already been printed, so neither is silent. */
__attribute__((noreturn)) static void native_exit(int status)
{
    outb(DEBUG_EXIT_PORT, (uint8_t)status);
    outb(KBC_COMMAND_PORT, KBC_PULSE_RESET);
    cpu_halt_forever();
    __builtin_unreachable();
}

/* Every table the kernel makes or walks lies in identity-mapped RAM. */
static void *native_maddr_to_virt(uint64_t maddr)
{
    return (void *)maddr;
}

/* Entries hold physical addresses: there is nothing beneath us. */
static uint64_t native_phys_to_maddr(uint64_t pa)
{
    return pa;
}

static const struct platform_ops native_platform_ops = {
    .name = "native",
    .console_write = serial_write,
    .exit = native_exit,
    .kernel_map_init = kernel_map_init_native,
    .maddr_to_virt = native_maddr_to_virt,
    .phys_to_maddr = native_phys_to_maddr,
    .patch_backend = native_ops_patch_backend,
    .text_poke = native_text_poke,
};

void native_early_init(void)
{
    serial_init();
    platform_ops = &native_platform_ops;
    descriptors_init_native();
    native_ops_install();
}
