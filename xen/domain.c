/* What both Xen backends know of the domain: the shared_info page, what
 * the entry path read from its start info (xen_domain), how Xen names our
 * frames, and what a failed hypercall does. */
#include "kernel/exit.h"
#include "mm/pgtable.h"
#include "xen/backend.h"
#include "xen/hypercall.h"

/* The entry path replaces this page's frame with Xen's shared_info. */
union xen_shared_info_page xen_shared_info_page
    __attribute__((aligned(PAGE_SIZE), section(".bss.page_aligned")));
_Static_assert(sizeof(xen_shared_info_page) == PAGE_SIZE, "shared_info must fit in one page");

struct xen_domain xen_domain;

/* RAM is mapped at VA == PA; the installed memory model turns that into
 * what Xen calls the frame. Call once the mmu ops are installed. */
uint64_t xen_frame_of(const void *va)
{
    return pv_mmu_ops.phys_to_maddr((uint64_t)va) >> 12;
}

/* Xen's feature bits do not change while the domain runs (a migration
 * lands on the same Xen here), so they are read once, at install. */
void xen_features_read(void)
{
    xen_feature_info_t fi = {.submap_idx = 0};

    xen_must(HYPERVISOR_xen_version(XENVER_get_features, &fi), "XENVER_get_features");
    xen_domain.features = fi.submap;
}

bool xen_has_feature(unsigned feature)
{
    return feature < 32 && (xen_domain.features & (1u << feature));
}

void xen_must(long rc, const char *op)
{
    if (rc < 0)
        panic("xen: hypercall %s failed with error %ld", op, rc);
}
