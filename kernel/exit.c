#include "kernel/exit.h"

#include <stdarg.h>

#include "kernel/console.h"
#include "kernel/printf.h"
#include "pv/ops.h"

void kernel_exit(int status, const char *reason)
{
    if (status == EXIT_CLEAN)
        kprintf("patchbay: PASS\n");
    else
        kprintf("patchbay: FAIL %s\n", reason);
    pv_machine_ops.exit(status);
}

void panic(const char *fmt, ...)
{
    static int panicking;
    char reason[160];
    va_list ap;

    if (panicking++) /* a panic while panicking: just stop */
        pv_machine_ops.exit(EXIT_FAILURE);
    va_start(ap, fmt);
    kvsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    kprintf("panic: %s\n", reason);
    kernel_exit(EXIT_FAILURE, "panic");
}
