/* The image's Xen ELF notes. */
#include "xen/elfnotes.h"

/* PVH: QEMU's -kernel (and Xen for PVH guests) starts the image at this
 * 32-bit physical address in flat protected mode (boot/pvh.asm). */
XEN_ELFNOTE(XEN_ELFNOTE_PHYS32_ENTRY, ".long pvh_entry");
