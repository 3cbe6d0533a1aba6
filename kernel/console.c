#include "kernel/console.h"

#include "kernel/printf.h"
#include "kernel/string.h"
#include "pv/ops.h"

/* Output is gathered into a small buffer so a platform whose console costs a
 * hypercall per call (Xen's console_io) pays once per line, not per char. */
struct console_buffer {
    char buf[128];
    size_t len;
};

void console_write(const char *s, size_t len)
{
    if (pv_machine_ops.console_write && len > 0)
        pv_machine_ops.console_write(s, len);
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
