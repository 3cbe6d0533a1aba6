/* The grant table's frames under PV: Xen's own, which it names by machine
 * frame; a PV guest maps them like any other machine frame. */
#include "xen/grant_table.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"

const char *xen_pv_grant_frames(unsigned nr, uint64_t *frames)
{
    xen_pfn_t list[GNTTAB_FRAMES];
    struct gnttab_setup_table setup = {.dom = DOMID_SELF, .nr_frames = nr};
    long rc;

    if (nr > GNTTAB_FRAMES)
        return "more grant frames asked for than the list holds";
    set_xen_guest_handle(setup.frame_list, list);
    rc = HYPERVISOR_grant_table_op(GNTTABOP_setup_table, &setup, 1);
    if (rc < 0 || setup.status != GNTST_okay)
        return "GNTTABOP_setup_table failed";
    for (unsigned i = 0; i < nr; i++)
        frames[i] = (uint64_t)list[i] << 12;
    return NULL;
}
