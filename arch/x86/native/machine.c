/* The native machine: COM1 for the console, QEMU's isa-debug-exit to end
 * the run. */
#include "arch/x86/cpu.h"
#include "arch/x86/native/backend.h"
#include "arch/x86/serial.h"
#include "kernel/exit.h"

#define DEBUG_EXIT_PORT 0xf4 /* QEMU -device isa-debug-exit,iobase=0xf4 */
#define KBC_COMMAND_PORT 0x64
#define KBC_PULSE_RESET 0xfe

void native_console_write(const char *s, size_t len)
{
    serial_write(s, len);
}

/* QEMU exits with (status << 1) | 1. Without that device we fall back to a
 * reset, which QEMU's -no-reboot also turns into an exit; the verdict line
 * has already been printed, so neither is silent. */
void native_exit(int status)
{
    outb(DEBUG_EXIT_PORT, (uint8_t)status);
    outb(KBC_COMMAND_PORT, KBC_PULSE_RESET);
    cpu_halt_forever();
    __builtin_unreachable();
}

/* pv.restore_fl needs nothing here: it is read when the patcher asks for
 * its backend. time.miscalibrate must act before any deadline is armed. */
void native_setup(void)
{
    native_time_setup();
}

/* What the native backend has to check, the generic self-tests do. */
void native_selftest(void)
{
}

/* No toolstack runs a bare machine: nothing can ask it to suspend, and
 * lifecycle= refuses to run here. */
const char *native_lifecycle_start(void)
{
    return "no toolstack saves a bare machine: lifecycle= needs a Xen domU";
}

const char *native_lifecycle_request(void)
{
    return 0;
}

int native_suspend(void)
{
    panic("native: suspend without a toolstack");
}

void native_cpu_resume(unsigned cpu)
{
    (void)cpu;
}

unsigned native_domain_id(void)
{
    return ~0u;
}
