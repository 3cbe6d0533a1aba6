/* The kernel's printf engine. kformat() sends each character to a callback,
 * so consoles and string buffers share one formatter.
 *
 * Conversions: %d %i %u %x %X %p %s %c %%; lengths hh h l ll z; flags '-'
 * and '0'; width as a number or '*'; precision ('.N' or '.*') for strings,
 * and as a minimum digit count for integers. %p is "0x" and 16 hex digits.
 * An unknown conversion is printed as written, e.g. "%q". */
#ifndef KERNEL_PRINTF_H
#define KERNEL_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*format_putc_fn)(char c, void *ctx);

/* Returns the number of characters passed to putc. */
int kformat(format_putc_fn putc, void *ctx, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* snprintf semantics: writes at most size - 1 characters plus a NUL when
 * size > 0, and returns the length the whole output would have had. */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* n bytes as "xx xx ...", as many whole bytes as fit in size (NUL included):
 * a dump line's bytes, cut at a byte boundary. */
void ksnprint_bytes(char *buf, size_t size, const void *p, size_t n);

#endif
