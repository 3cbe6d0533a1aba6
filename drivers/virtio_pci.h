/* The virtio 1.x PCI transport, modern only (virtio spec 4.1): the
 * device's structures found through vendor capabilities in configuration
 * space, each mapped from its BAR. Structs and numbers are Linux's UAPI
 * <linux/virtio_pci.h> and <linux/virtio_config.h>. */
#ifndef DRIVERS_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_pci.h>

#include "drivers/pci.h"
#include "drivers/virtqueue.h"

#define VIRTIO_PCI_VENDOR 0x1af4
#define VIRTIO_PCI_MODERN_BASE 0x1040 /* spec 4.1.2.1: 0x1040 + the device id */

struct virtio_pci {
    struct pci_device pci;
    volatile struct virtio_pci_common_cfg *common;
    volatile uint8_t *device; /* the device-specific configuration */
    volatile uint8_t *notify;
    uint32_t notify_mult;
};

/* virtio.event_idx: whether drivers offer VIRTIO_RING_F_EVENT_IDX, one
 * switch for every virtio device so a benchmark compares like with like. */
extern bool virtio_event_idx;

/* Finds the first device of type `id` (VIRTIO_ID_*) and maps its common,
 * notify and device structures; NULL, or the reason it cannot be used. */
const char *virtio_pci_find(uint16_t id, struct virtio_pci *vp);

/* Reset, then ACKNOWLEDGE and DRIVER (spec 3.1.1, steps 1-3). */
void virtio_pci_start(struct virtio_pci *vp);

/* Steps 4-6: offers wanted & the device's features, sets FEATURES_OK and
 * checks the device kept it; the features agreed, or 0 if it did not. */
uint64_t virtio_pci_negotiate(struct virtio_pci *vp, uint64_t wanted);

/* Gives queue `index` the rings of vq, its completions to MSI-X entry
 * msix_entry, and enables it; returns where to notify it, or NULL. */
volatile uint16_t *virtio_pci_setup_queue(struct virtio_pci *vp, uint16_t index,
                                          const struct virtqueue *vq, uint16_t msix_entry);

/* The size the device offers for queue `index` (0: no such queue). */
uint16_t virtio_pci_queue_size(struct virtio_pci *vp, uint16_t index);

/* A driver's first steps, the same for every device (spec 3.1.1 steps
 * 1-6): finds the first device of type id, resets it and agrees on
 * features. The features agreed, VERSION_1 among them; or 0, said in one
 * line named after the driver (and the device failed, if one was found). */
uint64_t virtio_pci_begin(struct virtio_pci *vp, const char *driver, uint16_t id, uint64_t wanted);

/* Sets DRIVER_OK: the device may use the queues. Or FAILED. */
void virtio_pci_ready(struct virtio_pci *vp);
void virtio_pci_fail(struct virtio_pci *vp);

/* A 32- or 64-bit field of the device configuration, read whole (spec
 * 4.1.3.1: again while the configuration generation changes under it). */
uint32_t virtio_pci_config32(struct virtio_pci *vp, unsigned offset);
uint64_t virtio_pci_config64(struct virtio_pci *vp, unsigned offset);

#endif
