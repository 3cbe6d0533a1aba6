/* Rewriting paravirt call sites (pv/site.h) with what a backend supplies.
 *
 * pv_patch_site() and its helpers (pv/patch.c) are pure machinery: they
 * work on a byte buffer that stands for a range of text addresses, so the
 * host unit tests and tools/pvemit run exactly the code the kernel runs at
 * boot. pv_patch_all() (pv/patch_all.c) walks .pv_sites with them. */
#ifndef PV_PATCH_H
#define PV_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/site.h"

#define PV_CALL_REL32_LEN 5       /* call rel32: E8 + 4-byte displacement */
#define PV_PATCH_SUMMARY_LEN 1024 /* pv_patch_summary() fits, for any counts and a name <= 32 */

/* What a backend wants at a site instead of the indirect call. */
enum pv_replacement_kind {
    PV_REPL_NONE,   /* keep the indirect call */
    PV_REPL_INLINE, /* these bytes; len 0 turns the whole site into padding */
    PV_REPL_CALL,   /* a direct call to target, which keeps the callee-save convention */
};

struct pv_replacement {
    enum pv_replacement_kind kind;
    uint8_t bytes[PV_SITE_MAX_LEN]; /* INLINE */
    uint8_t len;                    /* INLINE */
    /* CALL: the callee. INLINE: 0, or the target of the call rel32 the
     * patcher writes at bytes[call_at], once it knows where bytes land. */
    uint64_t target;
    uint8_t call_at;
};

/* A backend answers for one op at one address, so it can emit rip-relative
 * code. out arrives zeroed, i.e. PV_REPL_NONE. */
struct pv_backend {
    const char *name; /* "native", "xen" */
    void (*replacement)(const struct pv_backend *be, enum pv_op op, uint64_t site_addr,
                        struct pv_replacement *out);
    const void *ctx; /* the backend's own data */
    /* What sets this backend apart from its platform's default, for
     * reports: NULL, or e.g. "restore_fl=condsti". */
    const char *variant;
};

/* Text to patch: host memory `bytes` holds addresses [start, start + len). */
struct pv_text {
    uint8_t *bytes;
    uint64_t start;
    uint64_t len;
};

enum pv_patch_result {
    PV_PATCHED_INLINE,
    PV_PATCHED_CALL,
    PV_KEPT_NO_TEMPLATE, /* the backend answered PV_REPL_NONE */
    PV_KEPT_TOO_LONG,    /* does not fit: longer than the site, or a call out of rel32 reach */
    PV_REJECTED,         /* the descriptor failed pv_site_valid(); nothing written */
};

/* Every site passed to pv_patch_site() counts in `sites` and in exactly one
 * of the other fields. */
struct pv_patch_stats {
    unsigned sites;
    unsigned inline_by_op[PV_OP_COUNT];
    unsigned call_by_op[PV_OP_COUNT];
    unsigned kept_no_template;
    unsigned kept_too_long;
    unsigned rejected;
};

/* Checks a descriptor against the text: a known op, PV_INDIRECT_CALL_LEN <=
 * len <= PV_SITE_MAX_LEN, reserved == 0, [addr, addr + len) inside the text,
 * and the site still starting with the FF 15 indirect call (so a site
 * patched twice, or a stale descriptor, is refused). On failure writes one
 * line, without a newline, into err and returns false. */
bool pv_site_valid(const struct pv_site *s, const struct pv_text *text, char *err, size_t errlen);

/* Validates, asks the backend, and rewrites the whole site or none of it:
 * never writes outside [addr, addr + len). Fills err for PV_REJECTED only. */
enum pv_patch_result pv_patch_site(const struct pv_site *s, const struct pv_backend *be,
                                   struct pv_text *text, struct pv_patch_stats *st, char *err,
                                   size_t errlen);

/* Fills len bytes with one instruction that does nothing: the recommended
 * NOP of that length, or past PV_NOP_MAX_LEN `jmp` over int3s. */
void pv_fill_padding(uint8_t *buf, size_t len);

/* Writes `call target` (E8 rel32, 5 bytes) as it would be at address `at`.
 * Returns false, writing nothing, if target is out of rel32 reach. */
bool pv_emit_call(uint8_t *buf, uint64_t at, uint64_t target);

/* Writes `call *slot(%rip)` (FF 15 rel32, PV_INDIRECT_CALL_LEN bytes) as it
 * would be at address `at`; false, writing nothing, if out of reach. */
bool pv_emit_indirect_call(uint8_t *buf, uint64_t at, uint64_t slot);

/* Writes the site at addr as linked (pv/call.h): the indirect call through
 * slot, then padding to len (PV_INDIRECT_CALL_LEN <= len <=
 * PV_SITE_MAX_LEN); false, writing nothing, if slot is out of reach. */
bool pv_emit_linked_site(uint8_t *buf, uint64_t addr, size_t len, uint64_t slot);

/* "irq_disable" ... "leave_lazy_mmu"; "unknown" for op >= PV_OP_COUNT. */
const char *pv_op_name(enum pv_op op);

/* One line, without a newline, e.g. "pv: native ops, patched 65/65 sites
 * (irq_disable 16 inline, ...)". Truncated
 * to size like snprintf (see PV_PATCH_SUMMARY_LEN). */
void pv_patch_summary(const struct pv_patch_stats *st, const char *backend, char *buf, size_t size);

/* Walks .pv_sites once and rewrites each site with what the backend
 * supplies (unless pv.patch=off); prints one summary line. Runs while the
 * text is still writable, before the kernel map makes it read-only. */
void pv_patch_all(const struct pv_backend *be);

/* The kernel's text as pv_patch_site() and pv_site_valid() take it: in
 * place, at its own addresses. */
struct pv_text pv_kernel_text(void);

/* pv.trace=1: a backend rewriting sites of its own shows their bytes too,
 * as pv_patch_all() does: " b0 b1 ... -> a0 a1 ...", no newline. */
bool pv_patch_tracing(void);
void pv_trace_bytes(const uint8_t *before, const uint8_t *after, unsigned len);

/* The backend pv_patch_all() rewrote the sites with; NULL if it left them
 * alone (pv.patch=off) or has not run. */
const struct pv_backend *pv_patched_with(void);

#endif
