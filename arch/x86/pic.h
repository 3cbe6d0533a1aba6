/* The legacy 8259 interrupt controllers. */
#ifndef ARCH_X86_PIC_H
#define ARCH_X86_PIC_H

#define PIC_VECTOR_BASE 0x20 /* IRQs 0-15 arrive on vectors 0x20-0x2f, if ever */

/* Moves both 8259s off the exception vectors and masks every line: the
 * local APIC is the only interrupt source the kernel uses. */
void pic_disable(void);

#endif
