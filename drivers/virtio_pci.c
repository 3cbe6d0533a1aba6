/* The virtio 1.x modern PCI transport (drivers/virtio_pci.h). */
#include "drivers/virtio_pci.h"

#include <stddef.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "mm/kernel_map.h"

#define RESET_POLLS 1000000

bool virtio_event_idx = true;
OPTION_BOOL(virtio_event_idx, "virtio.event_idx",
            "offer VIRTIO_RING_F_EVENT_IDX (off: notifications by the rings' flags)");

/* The fields of struct virtio_pci_cap, read from configuration space. */
#define CAP_FIELD(cap, field) ((cap) + offsetof(struct virtio_pci_cap, field))

static volatile void *map_cap(const struct pci_device *p, unsigned cap)
{
    uint64_t bar = pci_bar_address(p, pci_read8(p, CAP_FIELD(cap, bar)));
    uint32_t offset = pci_conf_read32(&p->addr, CAP_FIELD(cap, offset));
    uint32_t length = pci_conf_read32(&p->addr, CAP_FIELD(cap, length));

    return bar && length ? kernel_map_mmio(bar + offset, length) : NULL;
}

/* Spec 4.1.4: the first capability of each type is the one to use. */
const char *virtio_pci_find(uint16_t id, struct virtio_pci *vp)
{
    const uint16_t ids[] = {VIRTIO_PCI_MODERN_BASE + id, 0};
    struct pci_device *p = &vp->pci;

    *vp = (struct virtio_pci){0};
    if (!pci_find(VIRTIO_PCI_VENDOR, ids, p))
        return "no such device";
    for (unsigned cap = pci_find_cap(p, PCI_CAP_ID_VNDR, 0); cap;
         cap = pci_find_cap(p, PCI_CAP_ID_VNDR, cap)) {
        uint8_t type = pci_read8(p, CAP_FIELD(cap, cfg_type));

        if (type == VIRTIO_PCI_CAP_COMMON_CFG && !vp->common)
            vp->common = map_cap(p, cap);
        else if (type == VIRTIO_PCI_CAP_DEVICE_CFG && !vp->device)
            vp->device = map_cap(p, cap);
        else if (type == VIRTIO_PCI_CAP_NOTIFY_CFG && !vp->notify) {
            vp->notify = map_cap(p, cap);
            vp->notify_mult = pci_conf_read32(
                &p->addr, cap + offsetof(struct virtio_pci_notify_cap, notify_off_multiplier));
        }
    }
    if (!vp->common || !vp->notify || !vp->device)
        return "its common, notify or device structure is missing or cannot be mapped";
    pci_enable_mmio_dma(p);
    return NULL;
}

/* Spec 4.1.4.3.2: after writing 0, wait until the status reads 0. */
void virtio_pci_start(struct virtio_pci *vp)
{
    vp->common->device_status = 0;
    for (unsigned i = 0; vp->common->device_status != 0 && i < RESET_POLLS; i++)
        __builtin_ia32_pause();
    vp->common->device_status = VIRTIO_CONFIG_S_ACKNOWLEDGE;
    vp->common->device_status |= VIRTIO_CONFIG_S_DRIVER;
}

uint64_t virtio_pci_negotiate(struct virtio_pci *vp, uint64_t wanted)
{
    volatile struct virtio_pci_common_cfg *c = vp->common;
    uint64_t offered, agreed;

    c->device_feature_select = 0;
    offered = c->device_feature;
    c->device_feature_select = 1;
    offered |= (uint64_t)c->device_feature << 32;
    agreed = offered & wanted;
    c->guest_feature_select = 0;
    c->guest_feature = (uint32_t)agreed;
    c->guest_feature_select = 1;
    c->guest_feature = (uint32_t)(agreed >> 32);
    c->device_status |= VIRTIO_CONFIG_S_FEATURES_OK;
    return c->device_status & VIRTIO_CONFIG_S_FEATURES_OK ? agreed : 0;
}

uint16_t virtio_pci_queue_size(struct virtio_pci *vp, uint16_t index)
{
    vp->common->queue_select = index;
    return vp->common->queue_size;
}

/* The spec's 64-bit fields, written as two 32-bit halves (4.1.3.1). */
static void write64(volatile uint32_t *lo, volatile uint32_t *hi, const void *p)
{
    uint64_t v = (uint64_t)(uintptr_t)p;

    *lo = (uint32_t)v;
    *hi = (uint32_t)(v >> 32);
}

volatile uint16_t *virtio_pci_setup_queue(struct virtio_pci *vp, uint16_t index,
                                          const struct virtqueue *vq, uint16_t msix_entry)
{
    volatile struct virtio_pci_common_cfg *c = vp->common;

    c->queue_select = index;
    c->queue_size = vq->size;
    write64(&c->queue_desc_lo, &c->queue_desc_hi, vq->desc);
    write64(&c->queue_avail_lo, &c->queue_avail_hi, vq->avail);
    write64(&c->queue_used_lo, &c->queue_used_hi, vq->used);
    c->msix_config = VIRTIO_MSI_NO_VECTOR;
    c->queue_msix_vector = msix_entry;
    if (c->queue_msix_vector != msix_entry) /* spec 4.1.5.1.2: it could not take it */
        return NULL;
    c->queue_enable = 1;
    return (volatile uint16_t *)(vp->notify + (uint32_t)c->queue_notify_off * vp->notify_mult);
}

void virtio_pci_ready(struct virtio_pci *vp)
{
    vp->common->device_status |= VIRTIO_CONFIG_S_DRIVER_OK;
}

void virtio_pci_fail(struct virtio_pci *vp)
{
    vp->common->device_status |= VIRTIO_CONFIG_S_FAILED;
}

uint32_t virtio_pci_config32(struct virtio_pci *vp, unsigned offset)
{
    return *(volatile uint32_t *)(vp->device + offset);
}

uint64_t virtio_pci_config64(struct virtio_pci *vp, unsigned offset)
{
    uint8_t gen;
    uint64_t v;

    do {
        gen = vp->common->config_generation;
        v = virtio_pci_config32(vp, offset) | (uint64_t)virtio_pci_config32(vp, offset + 4) << 32;
    } while (gen != vp->common->config_generation);
    return v;
}

uint64_t virtio_pci_begin(struct virtio_pci *vp, const char *driver, uint16_t id, uint64_t wanted)
{
    const char *why = virtio_pci_find(id, vp);
    uint64_t features;

    if (why) {
        if (vp->pci.vendor) /* one of ours, unusable; silence when there is none */
            kprintf("%s: %s\n", driver, why);
        return 0;
    }
    virtio_pci_start(vp);
    features = virtio_pci_negotiate(vp, wanted);
    if (!(features & (1ull << VIRTIO_F_VERSION_1))) {
        kprintf("%s: the device does not offer VIRTIO_F_VERSION_1 or refused the features\n",
                driver);
        virtio_pci_fail(vp);
        return 0;
    }
    return features;
}
