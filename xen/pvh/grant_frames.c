/* The grant table's frames under PVH: Xen places them in our guest-physical
 * space wherever we ask (XENMAPSPACE_grant_table), so we ask for frames
 * above every RAM range and 4 GiB, where neither RAM nor the emulated
 * devices' holes are. */
#include "kernel/boot_info.h"
#include "mm/pgtable.h"
#include "xen/grant_table.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

static uint64_t free_guest_physical(void)
{
    uint64_t top = UINT64_C(4) << 30;

    for (size_t i = 0; i < boot_info.nr_ram; i++)
        if (boot_info.ram[i].base + boot_info.ram[i].len > top)
            top = boot_info.ram[i].base + boot_info.ram[i].len;
    return (top + LARGE_PAGE_SIZE - 1) & ~(LARGE_PAGE_SIZE - 1);
}

const char *xen_pvh_grant_frames(unsigned nr, uint64_t *frames)
{
    uint64_t base = free_guest_physical();

    for (unsigned i = 0; i < nr; i++) {
        struct xen_add_to_physmap map = {.domid = DOMID_SELF,
                                         .space = XENMAPSPACE_grant_table,
                                         .idx = i,
                                         .gpfn = (base >> 12) + i};
        if (HYPERVISOR_memory_op(XENMEM_add_to_physmap, &map) < 0)
            return "XENMEM_add_to_physmap grant_table failed";
        frames[i] = base + i * PAGE_SIZE;
    }
    return NULL;
}
