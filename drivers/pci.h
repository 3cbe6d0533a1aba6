/* PCI: finding a function on the bus, its BARs and capabilities, and
 * MSI-X. Register numbers are the PCI spec's, from Linux's UAPI header
 * <linux/pci_regs.h>. */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct pci_addr {
    uint8_t bus, dev, fn;
};

struct pci_device {
    struct pci_addr addr;
    uint16_t vendor, device;
};

/* Configuration space, a dword at a time (arch/x86/pci_conf.c). */
uint32_t pci_conf_read32(const struct pci_addr *a, unsigned offset);
void pci_conf_write32(const struct pci_addr *a, unsigned offset, uint32_t v);

uint8_t pci_read8(const struct pci_device *p, unsigned offset);
uint16_t pci_read16(const struct pci_device *p, unsigned offset);
void pci_write16(const struct pci_device *p, unsigned offset, uint16_t v);

/* The first function on buses 0..PCI_SCAN_BUSES-1 with this vendor and
 * one of the device ids (a list ending in 0); false if none. */
#define PCI_SCAN_BUSES 4
bool pci_find(uint16_t vendor, const uint16_t *devices, struct pci_device *out);

/* The offset of the first capability with this id after `after` (0: from
 * the start of the list), or 0 when there is none. */
unsigned pci_find_cap(const struct pci_device *p, uint8_t id, unsigned after);

/* BAR n's memory address (both halves of a 64-bit one), or 0 for an I/O
 * BAR or one not assigned. */
uint64_t pci_bar_address(const struct pci_device *p, unsigned n);

/* Lets the function decode its memory BARs and master the bus (DMA into
 * our rings), and keeps it off INTx: it signals through MSI-X. */
void pci_enable_mmio_dma(const struct pci_device *p);

/* Routes MSI-X table entry `entry` to `vector` on the calling CPU's local
 * APIC, unmasked, and turns MSI-X on; false if the function has no MSI-X
 * or that entry, or its table cannot be mapped. */
bool pci_msix_route(const struct pci_device *p, unsigned entry, uint8_t vector);

#endif
