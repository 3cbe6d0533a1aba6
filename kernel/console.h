/* The kernel console: every line the kernel prints goes through here to the
 * platform's console (COM1 natively, the Xen console under Xen). */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

void console_write(const char *s, size_t len);

/* From now on several CPUs may write: they take turns, a line at a time
 * (kernel/smp.c calls it before starting the second CPU). */
void console_share(void);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

#endif
