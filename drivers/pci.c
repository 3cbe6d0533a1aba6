/* PCI enumeration, BARs, capabilities and MSI-X, over the platform's
 * configuration-space accessors. */
#include "drivers/pci.h"

#include <linux/pci_regs.h>

#include "arch/x86/lapic.h"
#include "mm/kernel_map.h"

#define PCI_MAX_DEVICES 32
#define PCI_MAX_FUNCTIONS 8
#define PCI_HEADER_MULTI 0x80
#define PCI_CAP_HOPS 48 /* more than fit in 256 bytes: a looped list ends */

/* Intel SDM vol. 3, 11.11.1-2: an MSI's address selects the local APIC by
 * its id in bits 19:12; its data the vector, fixed delivery, edge. */
#define MSI_ADDRESS_BASE 0xfee00000u
#define MSI_ADDRESS_DEST_SHIFT 12

uint8_t pci_read8(const struct pci_device *p, unsigned offset)
{
    return pci_conf_read32(&p->addr, offset) >> (8 * (offset & 3));
}

uint16_t pci_read16(const struct pci_device *p, unsigned offset)
{
    return pci_conf_read32(&p->addr, offset) >> (8 * (offset & 2));
}

void pci_write16(const struct pci_device *p, unsigned offset, uint16_t v)
{
    uint32_t dword = pci_conf_read32(&p->addr, offset);
    unsigned shift = 8 * (offset & 2);

    dword = (dword & ~(0xffffu << shift)) | (uint32_t)v << shift;
    pci_conf_write32(&p->addr, offset, dword);
}

static bool id_in(uint16_t id, const uint16_t *list)
{
    for (; *list; list++) {
        if (*list == id)
            return true;
    }
    return false;
}

/* Function 0 says whether the others exist (its header type's bit 7). */
bool pci_find(uint16_t vendor, const uint16_t *devices, struct pci_device *out)
{
    for (unsigned bus = 0; bus < PCI_SCAN_BUSES; bus++) {
        for (unsigned dev = 0; dev < PCI_MAX_DEVICES; dev++) {
            for (unsigned fn = 0; fn < PCI_MAX_FUNCTIONS; fn++) {
                struct pci_device p = {.addr = {bus, dev, fn}};
                uint32_t id = pci_conf_read32(&p.addr, PCI_VENDOR_ID);

                if ((id & 0xffff) == 0xffff) {
                    if (fn == 0)
                        break;
                    continue;
                }
                p.vendor = id & 0xffff;
                p.device = id >> 16;
                if (p.vendor == vendor && id_in(p.device, devices)) {
                    *out = p;
                    return true;
                }
                if (fn == 0 && !(pci_read8(&p, PCI_HEADER_TYPE) & PCI_HEADER_MULTI))
                    break;
            }
        }
    }
    return false;
}

unsigned pci_find_cap(const struct pci_device *p, uint8_t id, unsigned after)
{
    unsigned at;

    if (!(pci_read16(p, PCI_STATUS) & PCI_STATUS_CAP_LIST))
        return 0;
    at = after ? pci_read8(p, after + PCI_CAP_LIST_NEXT) : pci_read8(p, PCI_CAPABILITY_LIST);
    for (unsigned hops = 0; at >= 0x40 && hops < PCI_CAP_HOPS; hops++) {
        at &= ~3u;
        if (pci_read8(p, at + PCI_CAP_LIST_ID) == id)
            return at;
        at = pci_read8(p, at + PCI_CAP_LIST_NEXT);
    }
    return 0;
}

uint64_t pci_bar_address(const struct pci_device *p, unsigned n)
{
    uint32_t lo;
    uint64_t addr;

    if (n > 5)
        return 0;
    lo = pci_conf_read32(&p->addr, PCI_BASE_ADDRESS_0 + 4 * n);
    if (lo & PCI_BASE_ADDRESS_SPACE_IO)
        return 0;
    addr = lo & PCI_BASE_ADDRESS_MEM_MASK;
    if ((lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64 && n < 5)
        addr |= (uint64_t)pci_conf_read32(&p->addr, PCI_BASE_ADDRESS_0 + 4 * (n + 1)) << 32;
    return addr;
}

void pci_enable_mmio_dma(const struct pci_device *p)
{
    uint16_t cmd = pci_read16(p, PCI_COMMAND);

    pci_write16(p, PCI_COMMAND,
                cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE);
}

/* PCI 3.0, 6.8.2: the table sits in a BAR at the offset the capability
 * gives; an entry is written while masked, then unmasked. */
bool pci_msix_route(const struct pci_device *p, unsigned entry, uint8_t vector)
{
    unsigned cap = pci_find_cap(p, PCI_CAP_ID_MSIX, 0);
    uint16_t control;
    uint32_t table;
    uint64_t bar;
    volatile uint32_t *e;

    if (!cap)
        return false;
    control = pci_read16(p, cap + PCI_MSIX_FLAGS);
    table = pci_conf_read32(&p->addr, cap + PCI_MSIX_TABLE);
    bar = pci_bar_address(p, table & PCI_MSIX_TABLE_BIR);
    if (entry > (control & PCI_MSIX_FLAGS_QSIZE) || !bar)
        return false;
    e = kernel_map_mmio(bar + (table & PCI_MSIX_TABLE_OFFSET) + entry * PCI_MSIX_ENTRY_SIZE,
                        PCI_MSIX_ENTRY_SIZE);
    if (!e)
        return false;
    e[PCI_MSIX_ENTRY_VECTOR_CTRL / 4] = PCI_MSIX_ENTRY_CTRL_MASKBIT;
    e[PCI_MSIX_ENTRY_LOWER_ADDR / 4] = MSI_ADDRESS_BASE | (uint32_t)lapic_id()
                                                              << MSI_ADDRESS_DEST_SHIFT;
    e[PCI_MSIX_ENTRY_UPPER_ADDR / 4] = 0;
    e[PCI_MSIX_ENTRY_DATA / 4] = vector;
    e[PCI_MSIX_ENTRY_VECTOR_CTRL / 4] = 0;
    pci_write16(p, cap + PCI_MSIX_FLAGS,
                (control & ~PCI_MSIX_FLAGS_MASKALL) | PCI_MSIX_FLAGS_ENABLE);
    return true;
}
