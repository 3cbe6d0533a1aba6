/* The two cascaded 8259 PICs. The firmware leaves them on vectors 8-15,
 * where the CPU's own exceptions live, so they are reprogrammed before
 * being masked: whatever still gets through cannot pass for a #DF. */
#include "arch/x86/pic.h"

#include "arch/x86/cpu.h"

#define PIC1_COMMAND 0x20
#define PIC1_DATA 0x21
#define PIC2_COMMAND 0xa0
#define PIC2_DATA 0xa1

#define ICW1_INIT_WITH_ICW4 0x11    /* edge triggered, cascaded, ICW4 follows */
#define ICW3_PIC1_CASCADE (1u << 2) /* the second PIC hangs off the first's IRQ 2 */
#define ICW3_PIC2_IDENTITY 2        /* ...and knows itself as that cascade line */
#define ICW4_8086_MODE 0x01
#define OCW1_MASK_ALL 0xff

void pic_disable(void)
{
    outb(PIC1_COMMAND, ICW1_INIT_WITH_ICW4);
    outb(PIC2_COMMAND, ICW1_INIT_WITH_ICW4);
    outb(PIC1_DATA, PIC_VECTOR_BASE);
    outb(PIC2_DATA, PIC_VECTOR_BASE + 8);
    outb(PIC1_DATA, ICW3_PIC1_CASCADE);
    outb(PIC2_DATA, ICW3_PIC2_IDENTITY);
    outb(PIC1_DATA, ICW4_8086_MODE);
    outb(PIC2_DATA, ICW4_8086_MODE);
    outb(PIC1_DATA, OCW1_MASK_ALL);
    outb(PIC2_DATA, OCW1_MASK_ALL);
}
