/* Native GDT, TSS and IDT. */
#ifndef ARCH_X86_DESCRIPTORS_H
#define ARCH_X86_DESCRIPTORS_H

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SELECTOR 0x18

#define IST_DOUBLE_FAULT 1 /* #DF runs on its own stack: the fault may be a stack overflow */

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The boot CPU: fills the IDT every CPU shares, loads it and CPU 0's GDT
 * and TSS. */
void descriptors_init_native(void);

/* A secondary CPU: loads its own GDT and TSS (with its own #DF stack) and
 * the shared IDT. */
void descriptors_init_secondary(unsigned cpu);

#define DOUBLE_FAULT_GUARD_SIZE 4096
#define DOUBLE_FAULT_STACK_SIZE 8192

#endif

#endif
