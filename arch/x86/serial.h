/* The 16550 UART on COM1: the native console. */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include <stddef.h>

void serial_init(void);
void serial_write(const char *s, size_t len);

#endif
