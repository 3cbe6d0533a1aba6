/* Paravirt call sites and their descriptors.
 *
 * Every pv wrapper (pv/irq.h, pv/mmu.h) is an inline-asm indirect call
 * through an ops table, padded to a fixed length per op, and records one
 * descriptor in section .pv_sites (bounded by __pv_sites_start/_end in
 * linker.ld). At boot the patcher (pv/patch.c) rewrites each site with what
 * the running backend supplies. Tools read the descriptors: the layout is
 * ABI (docs/pv-sites.md).
 *
 * Descriptor, 16 bytes, little-endian:
 *   u64 addr      first byte of the site
 *   u16 op        enum pv_op
 *   u8  len       bytes of the site, call + padding
 *   u8  clobbers  PV_CLOBBER_* registers the site may change besides flags
 *   u32 reserved  zero
 */
#ifndef PV_SITE_H
#define PV_SITE_H

#include <stdint.h>

#include "pv/op_list.h"

struct pv_site {
    uint64_t addr;
    uint16_t op;
    uint8_t len;
    uint8_t clobbers;
    uint32_t reserved;
};

_Static_assert(sizeof(struct pv_site) == 16, "tools rely on a 16-byte descriptor");

/* Callee-save convention: arguments in rdi, rsi; a result in rax; every
 * other register survives the site. */
#define PV_CLOBBER_NONE 0
#define PV_CLOBBER_RAX (1u << 0)

/* One number per site op, in registry order (pv/op_list.h). */
#define PV_ENUM_(a, table, op) PV_OP_##op,
enum pv_op { PV_SITES(PV_ENUM_, ~) PV_OP_COUNT };
#undef PV_ENUM_

#define PV_INDIRECT_CALL_LEN 6 /* call *table+off(%rip): FF 15 rel32 */
/* The patcher rejects longer sites; padding's short jmp reaches 127 bytes. */
#define PV_SITE_MAX_LEN 32
#define PV_NOP_MAX_LEN 9 /* the longest recommended NOP (Intel SDM vol. 2B, "NOP") */

#endif
