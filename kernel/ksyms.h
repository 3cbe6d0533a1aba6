/* Names for code addresses, so a backtrace reads "pvh_start+0x44". The
 * table is generated from the kernel's own first link (tools/ksyms). */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

struct ksym {
    uint64_t addr;
    uint64_t size; /* 0 when the symbol has none (asm labels) */
    const char *name;
};

extern const struct ksym ksyms_table[];
extern const unsigned long ksyms_count;

/* The function holding addr and addr's offset in it; NULL if none does. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

#endif
