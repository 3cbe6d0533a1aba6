/* The native platform: COM1, QEMU's isa-debug-exit, the CPU's own CR2. */
#ifndef ARCH_X86_NATIVE_PLATFORM_H
#define ARCH_X86_NATIVE_PLATFORM_H

/* Serial console, CPU tables, platform ops: what every native entry path
 * does before it looks at the loader's information. */
void native_early_init(void);

#endif
