/* The image's Xen ELF notes: how Xen (and QEMU's PVH loader) find their
 * way into the one image. `readelf -n build/patchbay.elf` lists them. */
#include "xen/elfnotes.h"

#include <xen/features.h>

/* PVH: QEMU's -kernel (and Xen for PVH guests) starts the image at this
 * 32-bit physical address in flat protected mode (boot/pvh.asm). */
XEN_ELFNOTE(XEN_ELFNOTE_PHYS32_ENTRY, ".long pvh_entry");

/* 64-bit PV (boot/xen_pv.asm). Xen's loader accepts only images that say
 * they are for the "generic" loader and the "xen-3.0" interface. */
XEN_ELFNOTE(XEN_ELFNOTE_GUEST_OS, ".asciz \"patchbay\"");
XEN_ELFNOTE(XEN_ELFNOTE_GUEST_VERSION, ".asciz \"0.1\"");
XEN_ELFNOTE(XEN_ELFNOTE_XEN_VERSION, ".asciz \"xen-3.0\"");
XEN_ELFNOTE(XEN_ELFNOTE_LOADER, ".asciz \"generic\"");
XEN_ELFNOTE(XEN_ELFNOTE_ENTRY, ".quad xen_pv_entry");
XEN_ELFNOTE(XEN_ELFNOTE_HYPERCALL_PAGE, ".quad hypercall_page");

/* The image is linked at its physical address (1 MiB). With a virtual
 * base and paddr offset of 0, Xen maps pseudo-physical page N at virtual
 * address N << 12, so every pointer means the same under Xen as natively. */
XEN_ELFNOTE(XEN_ELFNOTE_VIRT_BASE, ".quad 0");
XEN_ELFNOTE(XEN_ELFNOTE_PADDR_OFFSET, ".quad 0");

/* 64-bit PV is always 4-level paging; "yes" is what a PAE-capable
 * kernel says. */
XEN_ELFNOTE(XEN_ELFNOTE_PAE_MODE, ".asciz \"yes\"");

/* Nothing optional is required: the kernel keeps its page tables
 * read-only and updates them by hypercall, as Xen wants by default. Once
 * SUPPORTED_FEATURES is present Xen builds dom0 only if it lists dom0. */
XEN_ELFNOTE(XEN_ELFNOTE_FEATURES, ".asciz \"pae_pgdir_above_4gb\"");
XEN_ELFNOTE(XEN_ELFNOTE_SUPPORTED_FEATURES, ".long " ELFNOTE_STR((1 << XENFEAT_dom0)));
