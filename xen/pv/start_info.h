/* Reading the start_info page a Xen PV guest boots with into struct
 * boot_info, without trusting it: no arithmetic on its fields may wrap,
 * and the command line is read only within the page. */
#ifndef XEN_START_INFO_H
#define XEN_START_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/boot_info.h"

/* What start_info.magic begins with for a 64-bit PV guest. */
#define XEN_START_INFO_MAGIC "xen-3.0-x86_64"

/* page holds len readable bytes of start_info, which the guest sees at
 * page_addr. kernel_end is the end of the image and xen_stack_top the rsp
 * Xen started us with. Adds all of the domain's RAM to bi, reserves what
 * Xen packed after the image, and copies the command line. Returns NULL,
 * or one phrase saying why the page is unusable (bi may then be partly
 * filled). */
const char *xen_start_info_parse(const uint8_t *page, size_t len, uint64_t page_addr,
                                 uint64_t kernel_end, uint64_t xen_stack_top, struct boot_info *bi);

#endif
