/* PIT channel 2, whose gate and output the PC wires to port 0x61 rather
 * than to an interrupt line: software can start it and watch it finish
 * without any interrupt. */
#include "arch/x86/pit.h"

#include "arch/x86/cpu.h"

#define PIT_CH2_DATA 0x42
#define PIT_COMMAND 0x43
#define PORT_B 0x61               /* system control port B */
#define PORT_B_CH2_GATE (1u << 0) /* channel 2 counts only while its gate is high */
#define PORT_B_SPEAKER (1u << 1)  /* channel 2's output also drives the speaker */
#define PORT_B_CH2_OUT (1u << 5)  /* channel 2's output pin, read back */

#define PIT_SELECT_CH2 (2u << 6)
#define PIT_ACCESS_LOHI (3u << 4) /* the count is written low byte then high byte */
#define PIT_MODE_0 (0u << 1)      /* interrupt on terminal count: OUT rises at zero */

void pit_ch2_start(uint16_t ticks)
{
    outb(PORT_B, (inb(PORT_B) & ~PORT_B_SPEAKER) | PORT_B_CH2_GATE);
    outb(PIT_COMMAND, PIT_SELECT_CH2 | PIT_ACCESS_LOHI | PIT_MODE_0);
    outb(PIT_CH2_DATA, ticks & 0xff);
    outb(PIT_CH2_DATA, ticks >> 8); /* mode 0 starts counting once the count is complete */
}

bool pit_ch2_expired(void)
{
    return inb(PORT_B) & PORT_B_CH2_OUT;
}
