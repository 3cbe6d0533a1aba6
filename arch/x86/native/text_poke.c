/* Writing read-only kernel text natively: with interrupts off, clear
 * CR0.WP, under which ring 0 ignores read-only page bits (Intel SDM vol. 3,
 * 4.6.1), for the length of one copy. */
#include "arch/x86/cpu.h"
#include "arch/x86/native/backend.h"
#include "kernel/string.h"
#include "pv/irq.h"

void native_text_poke(void *addr, const void *bytes, size_t len)
{
    unsigned long flags = irq_save();
    uint64_t cr0 = read_cr0();

    write_cr0(cr0 & ~CR0_WP);
    memcpy(addr, bytes, len);
    write_cr0(cr0);
    irq_restore(flags);
}
