#include "arch/x86/serial.h"

#include <stdint.h>

#include "arch/x86/cpu.h"

#define COM1 0x3f8
#define UART_DATA 0 /* THR when written, divisor low byte with DLAB */
#define UART_IER 1  /* divisor high byte with DLAB */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define FCR_ENABLE_CLEAR 0x07
#define MCR_DTR_RTS 0x03 /* OUT2 stays off: we poll, no interrupts */
#define LSR_THR_EMPTY 0x20

void serial_init(void)
{
    outb(COM1 + UART_IER, 0);
    outb(COM1 + UART_LCR, LCR_DLAB);
    outb(COM1 + UART_DATA, 1); /* divisor 1: 115200 baud */
    outb(COM1 + UART_IER, 0);
    outb(COM1 + UART_LCR, LCR_8N1);
    outb(COM1 + UART_FCR, FCR_ENABLE_CLEAR);
    outb(COM1 + UART_MCR, MCR_DTR_RTS);
}

/* Bounded wait: a missing or wedged UART must not hang the kernel. */
static void serial_putc(char c)
{
    for (int spins = 0; spins < 100000; spins++) {
        if (inb(COM1 + UART_LSR) & LSR_THR_EMPTY)
            break;
    }
    outb(COM1 + UART_DATA, (uint8_t)c);
}

void serial_write(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        serial_putc(s[i]);
}
