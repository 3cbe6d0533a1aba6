/* Reading a Multiboot2 boot information block into struct boot_info,
 * without trusting it: every length is checked against the block's size. */
#ifndef KERNEL_MB2_PARSE_H
#define KERNEL_MB2_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/boot_info.h"

/* info holds len readable bytes: the block's u32 total_size, a reserved
 * u32, then 8-byte-aligned tags ending with an end tag (type 0). Adds the
 * command line and the available RAM to bi. Returns NULL, or one phrase
 * saying why the block is unusable (bi may then be partly filled). */
const char *mb2_parse(const uint8_t *info, size_t len, struct boot_info *bi);

/* Where in the block the loader's copy of the ACPI RSDP starts: tag 15's
 * (ACPI 2.0 and later) if there is one, else tag 14's (ACPI 1.0); 0 if
 * neither, or if the block is malformed. */
size_t mb2_acpi_rsdp(const uint8_t *info, size_t len);

#endif
