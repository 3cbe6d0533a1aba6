/* What every part of the Xen PV side shares: the start_info page, the
 * shared_info page, vCPU 0's vcpu_info and the two frame-number tables,
 * and the bring-up steps xen/start.c runs in order. */
#ifndef XEN_PV_GUEST_H
#define XEN_PV_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xen/xen_public.h"

struct boot_info;
struct platform_ops;

extern start_info_t *xen_start_info;

/* A page of our image whose mapping xen/start.c points at Xen's
 * shared_info frame: a fixed address, so code can refer to vcpu_info
 * fields RIP-relative. */
union xen_shared_info_page {
    struct shared_info info;
    uint8_t bytes[4096];
};
extern union xen_shared_info_page xen_shared_info_page;
#define xen_shared_info (xen_shared_info_page.info)
#define xen_vcpu (&xen_shared_info.vcpu_info[0])

static inline bool xen_is_initial_domain(void)
{
    return xen_start_info->flags & SIF_INITDOMAIN;
}

/* Pseudo-physical frame -> machine frame: the table Xen built for us
 * (start_info->mfn_list). */
static inline uint64_t pfn_to_mfn(uint64_t pfn)
{
    return ((const xen_pfn_t *)xen_start_info->mfn_list)[pfn];
}

/* Machine frame -> pseudo-physical frame: Xen's read-only
 * machine_to_phys table, mapped in every PV guest at MACH2PHYS_VIRT_START. */
static inline uint64_t mfn_to_pfn(uint64_t mfn)
{
    return ((const unsigned long *)MACH2PHYS_VIRT_START)[mfn];
}

/* With VIRT_BASE 0 a pseudo-physical address is its own virtual address. */
static inline uint64_t virt_to_maddr(const void *va)
{
    uint64_t a = (uint64_t)va;

    return (pfn_to_mfn(a >> 12) << 12) | (a & 0xfff);
}

/* CR3 as Xen emulates reading it: the top table's machine address. */
uint64_t xen_read_cr3_trapped(void);

/* Bring-up steps, in the order xen_start() runs them. */
void xen_console_init(void);                          /* xen/console.c */
void xen_traps_init(void);                            /* xen/traps.c */
void xen_events_init(void);                           /* xen/events.c */
void xen_ops_install(void);                           /* xen/xen_ops.c */
void xen_kernel_map_init(const struct boot_info *bi); /* xen/kernel_map.c */

/* The platform ops (xen/platform.c) and the pieces that live beside
 * their subsystems. */
extern const struct platform_ops xen_platform_ops;
void xen_console_write(const char *s, size_t len);
__attribute__((noreturn)) void xen_exit(int status);

#endif
