/* The native platform: COM1, QEMU's isa-debug-exit, the CPU's own CR2. */
#ifndef ARCH_X86_NATIVE_PLATFORM_H
#define ARCH_X86_NATIVE_PLATFORM_H

#include <stddef.h>

/* Serial console, CPU tables, platform ops: what every native entry path
 * does before it looks at the loader's information. */
void native_early_init(void);

/* platform text_poke (arch/x86/native_text_poke.c). */
void native_text_poke(void *addr, const void *bytes, size_t len);

#endif
