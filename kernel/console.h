/* The kernel console: every line the kernel prints goes through here to the
 * platform's console (COM1 natively, the Xen console under Xen). */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

void console_write(const char *s, size_t len);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

#endif
