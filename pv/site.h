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

enum pv_op {
    PV_OP_IRQ_DISABLE,
    PV_OP_IRQ_ENABLE,
    PV_OP_SAVE_FL,
    PV_OP_RESTORE_FL,
    PV_OP_SAFE_HALT,
    PV_OP_READ_CR3,
    PV_OP_WRITE_CR3,
    PV_OP_FLUSH_TLB_ONE,
    PV_OP_SET_PTE,
    PV_OP_PTEP_MODIFY_PROT_START,
    PV_OP_PTEP_MODIFY_PROT_COMMIT,
    PV_OP_ENTER_LAZY_MMU,
    PV_OP_LEAVE_LAZY_MMU,
    PV_OP_COUNT
};

/* Site lengths: the 6-byte indirect call `call *table+off(%rip)`, or the
 * longest replacement any backend writes, whichever is longer. */
#define PV_INDIRECT_CALL_LEN 6
#define PV_SITE_LEN_IRQ_DISABLE 7 /* Xen: movb $1, mask(%rip) */
#define PV_SITE_LEN_RESTORE_FL 9  /* native condsti: test $0x200,%edi; jz 1f; sti */
#define PV_SITE_LEN_DEFAULT 6
#define PV_SITE_MAX_LEN 15 /* the longest x86 instruction; the patcher rejects more */

#endif
