/* The Xen PV entry path, in C: boot/xen_pv.asm has switched to the boot
 * stack. Xen left us its start_info page, bootstrap page tables mapping
 * the image and what follows it, and events masked. */
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "mm/pgtable.h"
#include "xen/backend.h"
#include "xen/hypercall.h"
#include "xen/start_info.h"

#define HYPERCALL_PAGE_UNFILLED 0xcc /* the int3 fill of xen/hypercall_page.asm */

/* map_shared_info() replaces this page's frame with Xen's shared_info. */
union xen_shared_info_page xen_shared_info_page
    __attribute__((aligned(PAGE_SIZE), section(".bss.page_aligned")));
_Static_assert(sizeof(xen_shared_info_page) == PAGE_SIZE, "shared_info must fit in one page");

start_info_t *xen_start_info;

/* Xen ABI: the shared_info page is given by machine address; a PV guest
 * maps it itself. */
static void map_shared_info(uint64_t maddr)
{
    uint64_t pte = maddr | PTE_P | PTE_W | PTE_A | PTE_D | PTE_NX;

    xen_must(HYPERVISOR_update_va_mapping((uint64_t)&xen_shared_info_page, pte, UVMF_INVLPG),
             "update_va_mapping shared_info");
}

void xen_guest_init(void)
{
    const start_info_t *si = xen_start_info;

    if (strncmp(si->magic, XEN_START_INFO_MAGIC, strlen(XEN_START_INFO_MAGIC)) != 0)
        panic("xen: start_info magic \"%.32s\", expected \"%s\"", si->magic, XEN_START_INFO_MAGIC);
    map_shared_info(si->shared_info);
}

static void print_xen_banner(const start_info_t *si)
{
    long version = HYPERVISOR_xen_version(XENVER_version, 0);
    xen_extraversion_t extra = {0};

    HYPERVISOR_xen_version(XENVER_extraversion, extra);
    extra[sizeof(extra) - 1] = '\0';
    kprintf("xen: Xen %ld.%ld%s, start_info magic \"%.32s\", %lu pages, flags 0x%x\n",
            version >> 16, version & 0xffff, extra, si->magic, si->nr_pages, si->flags);
}

void xen_start(start_info_t *si, uint64_t xen_stack_top)
{
    const char *err;

    /* Without the hypercall page nothing can be said; a trap makes Xen
     * log the crash instead. */
    if ((uint8_t)hypercall_page[0] == HYPERCALL_PAGE_UNFILLED)
        __builtin_trap();
    xen_start_info = si;
    xen_install(); /* console first, then traps, events and every ops table */
    boot_info.method = BOOT_XEN_PV;
    err = xen_start_info_parse((const uint8_t *)si, sizeof(*si), (uint64_t)si,
                               (uint64_t)__kernel_end, xen_stack_top, &boot_info);
    if (err)
        panic("xen: start_info at %p: %s", si, err);
    print_xen_banner(si);
    xen_announce_role(); /* dom0, or a domU and its id */
    kernel_main();
}
