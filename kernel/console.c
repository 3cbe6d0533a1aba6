#include "kernel/console.h"

#include <stdbool.h>

#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/string.h"
#include "pv/irq.h"
#include "pv/ops.h"

/* Output is gathered into a small buffer so a platform whose console costs a
 * hypercall per call (Xen's console_io) pays once per line, not per char. */
struct console_buffer {
    char buf[128];
    size_t len;
};

/* With one CPU there is no one to interleave with, and neither the
 * per-CPU area nor the irq ops may be set up yet; once a second CPU
 * starts, writers take turns, with interrupts off so no holder is
 * preempted mid-line. The owner is a CPU, not a thread: a trap on the CPU
 * that holds it writes straight through instead of waiting for itself. */
static bool shared;
static int owner = -1;

void console_share(void)
{
    shared = true;
}

void console_write(const char *s, size_t len)
{
    int me, free = -1;
    bool took = false;
    unsigned long flags;

    if (!pv_machine_ops.console_write || len == 0)
        return;
    if (!shared) {
        pv_machine_ops.console_write(s, len);
        return;
    }
    flags = irq_save();
    me = (int)cpu_index();
    if (__atomic_load_n(&owner, __ATOMIC_RELAXED) != me) {
        while (!__atomic_compare_exchange_n(&owner, &free, me, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED)) {
            free = -1;
            __builtin_ia32_pause();
        }
        took = true;
    }
    pv_machine_ops.console_write(s, len);
    if (took)
        __atomic_store_n(&owner, -1, __ATOMIC_RELEASE);
    irq_restore(flags);
}

static void console_flush(struct console_buffer *cb)
{
    console_write(cb->buf, cb->len);
    cb->len = 0;
}

static void console_buffer_putc(char c, void *ctx)
{
    struct console_buffer *cb = ctx;

    cb->buf[cb->len++] = c;
    if (c == '\n' || cb->len == sizeof(cb->buf))
        console_flush(cb);
}

int vkprintf(const char *fmt, va_list ap)
{
    struct console_buffer cb = {.len = 0};
    int n = kformat(console_buffer_putc, &cb, fmt, ap);

    console_flush(&cb);
    return n;
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vkprintf(fmt, ap);
    va_end(ap);
    return n;
}
