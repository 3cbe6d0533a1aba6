/* Suspending a PV domain for the toolstack. What the toolstack needs of
 * a PV guest is where its frames are: page tables hold machine frames, so
 * saving means finding every page and every page-table page through the
 * guest's p2m and writing pseudo-physical frames instead, and restoring
 * means the reverse in a new domain with new frames. The guest publishes
 * the p2m (shared_info's pfn_to_mfn_frame_list_list and max_pfn), leaves
 * no foreign frame mapped (Xen's shared_info goes), and after the resume
 * takes nothing it remembered of a machine frame for granted. */
#include "kernel/exit.h"
#include "kernel/lifecycle.h"
#include "xen/hypercall.h"
#include "xen/pv/backend.h"

#define FRAMES_PER_PAGE (4096 / sizeof(xen_pfn_t))
#define LEAF_PAGES 8 /* 8 x 512 x 512 pages: 8 GiB of p2m covered */

/* Xen ABI (arch-x86/xen.h, arch_shared_info): a three-level list of the
 * p2m's frames, each level a page of machine frame numbers. */
static xen_pfn_t top[FRAMES_PER_PAGE] __attribute__((aligned(4096)));
static xen_pfn_t leaves[LEAF_PAGES][FRAMES_PER_PAGE] __attribute__((aligned(4096)));

/* The list's frames are machine frames too: built at the start and again
 * after every resume, before the next save can read it. */
static void publish_p2m(void)
{
    const xen_pfn_t *p2m = (const xen_pfn_t *)xen_start_info->mfn_list;
    uint64_t pages = (xen_start_info->nr_pages + FRAMES_PER_PAGE - 1) / FRAMES_PER_PAGE;

    if (pages > LEAF_PAGES * FRAMES_PER_PAGE)
        panic("xen: a p2m of %lu pages is past the %lu the frame list holds", pages,
              (uint64_t)(LEAF_PAGES * FRAMES_PER_PAGE));
    for (uint64_t i = 0; i < pages; i++)
        leaves[i / FRAMES_PER_PAGE][i % FRAMES_PER_PAGE] =
            virt_to_maddr(p2m + i * FRAMES_PER_PAGE) >> 12;
    for (uint64_t j = 0; j * FRAMES_PER_PAGE < pages; j++)
        top[j] = virt_to_maddr(leaves[j]) >> 12;
    xen_shared_info.arch.max_pfn = xen_start_info->nr_pages;
    xen_shared_info.arch.pfn_to_mfn_frame_list_list = virt_to_maddr(top) >> 12;
}

const char *xen_pv_lifecycle_start(void)
{
    const char *err = xen_lifecycle_start();

    if (!err)
        publish_p2m();
    return err;
}

/* On vCPU 0, the others parked, events masked. */
int xen_suspend(void)
{
    start_info_t *si = xen_start_info;
    long rc;

    xen_suspend_check_vcpu();
    xen_mmu_suspend();
    xen_time_suspend();
    xen_console_drain();
    /* The toolstack refuses a page table entry naming a frame not in our
     * p2m: the page goes back to our own frame. */
    xen_pv_map_shared_info(virt_to_maddr(&xen_shared_info_page));
    /* Xen ABI (the toolstack's PV restore): start_info names the rings by
     * pseudo-physical frame while saved; restore writes the new machine
     * frames there. */
    si->store_mfn = mfn_to_pfn(si->store_mfn);
    si->console.domU.mfn = mfn_to_pfn(si->console.domU.mfn);
    rc = HYPERVISOR_suspend(virt_to_maddr(si) >> 12);
    if (rc < 0)
        panic("xen: SCHEDOP_shutdown(SHUTDOWN_suspend) failed with Xen error %ld", rc);
    xen_pv_map_shared_info(si->shared_info); /* the toolstack rewrote it */
    if (rc == 1) { /* cancelled: the same domain, every port still bound */
        si->store_mfn = pfn_to_mfn(si->store_mfn);
        si->console.domU.mfn = pfn_to_mfn(si->console.domU.mfn);
        return 1;
    }
    xen_pv_read_domain(si);
    if (lifecycle_mutant() != LIFECYCLE_STALE_FRAME)
        xen_mmu_resume();
    xen_resume_domain();
    xen_mmu_check_cr3(); /* once the console and xenstore work, to say so */
    publish_p2m();
    return 0;
}
