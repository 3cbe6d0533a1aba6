/* The Xen PV entry path, in C: boot/xen_pv.asm has switched to the boot
 * stack. Xen left us its start_info page, bootstrap page tables mapping
 * the image and what follows it, and events masked. */
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"
#include "xen/pv/backend.h"
#include "xen/hypercall.h"
#include "xen/pv/start_info.h"

start_info_t *xen_start_info;

/* A page of ours the domain builder named by machine frame, at the
 * virtual address of its pseudo-physical frame (Xen ABI: the builder maps
 * the console and store pages in the bootstrap region); NULL if the frame
 * does not map back to itself, so it is not ours. */
static void *own_page(const start_info_t *si, uint64_t mfn)
{
    uint64_t pfn = mfn_to_pfn(mfn);

    if (mfn == 0 || pfn >= si->nr_pages || pfn_to_mfn(pfn) != mfn)
        return NULL;
    return (void *)(pfn << 12);
}

/* What the code both Xen backends share needs of start_info, at boot and
 * after every resume (the toolstack rewrites the frames and ports). dom0's
 * console fields describe the VGA console, not a ring. */
void xen_pv_read_domain(const start_info_t *si)
{
    xen_domain.dom0 = si->flags & SIF_INITDOMAIN;
    xen_domain.ports_need_iopl = true;
    if (!xen_domain.dom0) {
        xen_domain.console = own_page(si, si->console.domU.mfn);
        xen_domain.console_port = si->console.domU.evtchn;
    }
    xen_domain.store = own_page(si, si->store_mfn);
    xen_domain.store_port = si->store_evtchn;
    if (!xen_domain.store)
        xen_domain.store_problem = si->store_mfn ? "store_mfn is not a frame of this domain"
                                                 : "no store page (store_mfn 0)";
}

static void print_xen_banner(const start_info_t *si)
{
    char version[48];

    xen_version_string(version, sizeof(version));
    kprintf("xen: %s, start_info magic \"%.32s\", %lu pages, flags 0x%x\n", version, si->magic,
            si->nr_pages, si->flags);
}

void xen_start(start_info_t *si, uint64_t xen_stack_top)
{
    const char *err;

    /* Without the hypercall page nothing can be said; a trap makes Xen
     * log the crash instead. */
    if (!xen_hypercall_page_filled())
        __builtin_trap();
    xen_start_info = si;
    xen_pv_read_domain(si);
    xen_install(si); /* console first, then traps, events and every ops table */
    boot_info.method = BOOT_XEN_PV;
    err = xen_start_info_parse((const uint8_t *)si, sizeof(*si), (uint64_t)si,
                               (uint64_t)__kernel_end, xen_stack_top, &boot_info);
    if (err)
        panic("xen: start_info at %p: %s", si, err);
    print_xen_banner(si);
    xen_announce_role(si->flags & SIF_INITDOMAIN ? 0 : XEN_DOMID_UNKNOWN); /* and its id */
    kernel_main();
}
