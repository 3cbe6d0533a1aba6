/* PCI configuration space through the PC's mechanism #1: an address
 * written to port 0xCF8, the dword read or written at 0xCFC (PCI Local
 * Bus spec 3.0, 3.2.2.3.2). The one x86-specific piece of drivers/pci.c. */
#include "arch/x86/cpu.h"
#include "drivers/pci.h"
#include "pv/irq.h"

#define PCI_CONF_ADDRESS 0xcf8
#define PCI_CONF_DATA 0xcfc
#define PCI_CONF_ENABLE (1u << 31)

static uint32_t conf_address(const struct pci_addr *a, unsigned offset)
{
    return PCI_CONF_ENABLE | (uint32_t)a->bus << 16 | (uint32_t)a->dev << 11 |
           (uint32_t)a->fn << 8 | (offset & 0xfc);
}

/* The address and data accesses are a pair an interrupt handler's own
 * pair must not split. */
uint32_t pci_conf_read32(const struct pci_addr *a, unsigned offset)
{
    unsigned long flags = irq_save();
    uint32_t v;

    outl(PCI_CONF_ADDRESS, conf_address(a, offset));
    v = inl(PCI_CONF_DATA);
    irq_restore(flags);
    return v;
}

void pci_conf_write32(const struct pci_addr *a, unsigned offset, uint32_t v)
{
    unsigned long flags = irq_save();

    outl(PCI_CONF_ADDRESS, conf_address(a, offset));
    outl(PCI_CONF_DATA, v);
    irq_restore(flags);
}
