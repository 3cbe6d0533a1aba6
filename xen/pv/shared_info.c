/* Mapping the shared_info page, at boot and after a resume, and the first
 * look at start_info, from the install once a panic can be reported. */
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/pgtable.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"
#include "xen/pv/start_info.h"

/* Xen ABI: the shared_info page is given by machine address; a PV guest
 * maps it itself. */
void xen_pv_map_shared_info(uint64_t maddr)
{
    uint64_t pte = maddr | PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX;

    xen_must(HYPERVISOR_update_va_mapping((uint64_t)&xen_shared_info_page, pte, UVMF_INVLPG),
             "update_va_mapping shared_info");
}

void xen_guest_init(const start_info_t *si)
{
    if (strncmp(si->magic, XEN_START_INFO_MAGIC, strlen(XEN_START_INFO_MAGIC)) != 0)
        panic("xen: start_info magic \"%.32s\", expected \"%s\"", si->magic, XEN_START_INFO_MAGIC);
    xen_pv_map_shared_info(si->shared_info);
}
