#include "pv/patch.h"

#include <stdarg.h>

#include "kernel/printf.h"
#include "kernel/string.h"

#define OP_NAME_(a, table, op) [PV_OP_##op] = #op,
static const char *const op_names[PV_OP_COUNT] = {PV_SITES(OP_NAME_, ~)};

const char *pv_op_name(enum pv_op op)
{
    if ((unsigned)op >= PV_OP_COUNT)
        return "unknown";
    return op_names[op];
}

/* The recommended multi-byte NOPs, indexed by length (Intel SDM vol. 2B,
 * "NOP"): each is one instruction. */
static const uint8_t recommended_nops[PV_NOP_MAX_LEN + 1][PV_NOP_MAX_LEN] = {
    [1] = {0x90},                                                 /* nop */
    [2] = {0x66, 0x90},                                           /* 66 nop */
    [3] = {0x0f, 0x1f, 0x00},                                     /* nopl (%rax) */
    [4] = {0x0f, 0x1f, 0x40, 0x00},                               /* nopl 0(%rax), disp8 */
    [5] = {0x0f, 0x1f, 0x44, 0x00, 0x00},                         /* nopl 0(%rax,%rax,1), disp8 */
    [6] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},                   /* nopw 0(%rax,%rax,1), disp8 */
    [7] = {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},             /* nopl 0(%rax), disp32 */
    [8] = {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},       /* nopl 0(%rax,%rax,1), disp32 */
    [9] = {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}, /* nopw, disp32 */
};

/* Padding is one instruction at any length, so a site grown for one
 * backend's template costs the others one instruction, not one per nine
 * bytes: past the longest NOP it is a short jmp over int3s that never run. */
void pv_fill_padding(uint8_t *buf, size_t len)
{
    if (len == 0)
        return;
    if (len <= PV_NOP_MAX_LEN) {
        memcpy(buf, recommended_nops[len], len);
        return;
    }
    buf[0] = 0xeb;                  /* jmp rel8 */
    buf[1] = (uint8_t)(len - 2);    /* counted from the jmp's end; len <= PV_SITE_MAX_LEN */
    memset(buf + 2, 0xcc, len - 2); /* int3: a stray jump into padding traps */
}

/* call *disp32(%rip), every site's first instruction as linked: FF /2,
 * ModRM 00 010 101 (Intel SDM vol. 2A, "CALL", and table 2-2). */
static const uint8_t indirect_call_opcode[] = {0xff, 0x15};

/* Writes target as a rel32 counted from next, the end of the instruction;
 * false, writing nothing, if out of reach. */
static bool put_rel32(uint8_t *buf, uint64_t next, uint64_t target)
{
    int64_t rel = (int64_t)(target - next);

    if (rel < INT32_MIN || rel > INT32_MAX)
        return false;
    for (int i = 0; i < 4; i++)
        buf[i] = (uint8_t)((uint64_t)rel >> (8 * i)); /* little-endian */
    return true;
}

bool pv_emit_call(uint8_t *buf, uint64_t at, uint64_t target)
{
    if (!put_rel32(buf + 1, at + PV_CALL_REL32_LEN, target))
        return false;
    buf[0] = 0xe8; /* call rel32: E8 cd */
    return true;
}

bool pv_emit_indirect_call(uint8_t *buf, uint64_t at, uint64_t slot)
{
    if (!put_rel32(buf + 2, at + PV_INDIRECT_CALL_LEN, slot))
        return false;
    buf[0] = indirect_call_opcode[0];
    buf[1] = indirect_call_opcode[1];
    return true;
}

bool pv_emit_linked_site(uint8_t *buf, uint64_t addr, size_t len, uint64_t slot)
{
    if (!pv_emit_indirect_call(buf, addr, slot))
        return false;
    pv_fill_padding(buf + PV_INDIRECT_CALL_LEN, len - PV_INDIRECT_CALL_LEN);
    return true;
}

/* Names the site in every error line: its address, and its op when known. */
static int site_prefix(const struct pv_site *s, char *err, size_t errlen)
{
    if (s->op >= PV_OP_COUNT)
        return ksnprintf(err, errlen, "pv: site at 0x%lx", (unsigned long)s->addr);
    return ksnprintf(err, errlen, "pv: site at 0x%lx (%s)", (unsigned long)s->addr,
                     pv_op_name(s->op));
}

__attribute__((format(printf, 4, 5))) static bool reject(const struct pv_site *s, char *err,
                                                         size_t errlen, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (errlen == 0)
        return false;
    n = site_prefix(s, err, errlen);
    if (n < 0 || (size_t)n >= errlen)
        return false;
    va_start(ap, fmt);
    kvsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

static bool site_fields_valid(const struct pv_site *s, char *err, size_t errlen)
{
    if (s->op >= PV_OP_COUNT)
        return reject(s, err, errlen, ": unknown op %u (ops are 0..%u)", (unsigned)s->op,
                      (unsigned)PV_OP_COUNT - 1);
    if (s->len < PV_INDIRECT_CALL_LEN)
        return reject(s, err, errlen, ": length %u is shorter than the %u-byte indirect call",
                      (unsigned)s->len, (unsigned)PV_INDIRECT_CALL_LEN);
    if (s->len > PV_SITE_MAX_LEN)
        return reject(s, err, errlen, ": length %u is over the %u-byte maximum", (unsigned)s->len,
                      (unsigned)PV_SITE_MAX_LEN);
    if (s->reserved != 0)
        return reject(s, err, errlen, ": reserved field is 0x%x, not 0", (unsigned)s->reserved);
    return true;
}

/* Overflow-safe: neither addr + len nor start + len is ever computed. */
static bool site_in_text(const struct pv_site *s, const struct pv_text *text, char *err,
                         size_t errlen)
{
    unsigned long start = text->start, end = text->start + text->len;

    if (s->addr < text->start || s->addr - text->start >= text->len)
        return reject(s, err, errlen, ": address outside text [0x%lx, 0x%lx)", start, end);
    if (s->len > text->len - (s->addr - text->start))
        return reject(s, err, errlen, ": %u bytes cross the end of text at 0x%lx", (unsigned)s->len,
                      end);
    return true;
}

bool pv_site_valid(const struct pv_site *s, const struct pv_text *text, char *err, size_t errlen)
{
    const uint8_t *p;

    if (!site_fields_valid(s, err, errlen) || !site_in_text(s, text, err, errlen))
        return false;
    p = text->bytes + (s->addr - text->start);
    if (p[0] != indirect_call_opcode[0] || p[1] != indirect_call_opcode[1])
        return reject(s, err, errlen,
                      ": starts with %02x %02x, not the indirect call %02x %02x "
                      "(patched twice, or a stale descriptor)",
                      p[0], p[1], indirect_call_opcode[0], indirect_call_opcode[1]);
    return true;
}

/* Builds the site's new bytes in `site`; the result says whether to use
 * them. The padding goes first and the instructions end where the site
 * ends: a thread interrupted after a site's popf or sti, or returning from
 * its call, then resumes at the site's end, an address that stays an
 * instruction boundary whatever the site is later rewritten to
 * (kernel/live_patch.c). */
static enum pv_patch_result build_site(const struct pv_site *s, const struct pv_replacement *r,
                                       uint8_t *site)
{
    size_t pad;

    switch (r->kind) {
    case PV_REPL_INLINE:
        if (r->len > s->len || (r->target && r->call_at + PV_CALL_REL32_LEN > r->len))
            return PV_KEPT_TOO_LONG;
        pad = s->len - r->len;
        memcpy(site + pad, r->bytes, r->len);
        if (r->target &&
            !pv_emit_call(site + pad + r->call_at, s->addr + pad + r->call_at, r->target))
            return PV_KEPT_TOO_LONG;
        break;
    case PV_REPL_CALL:
        if (PV_CALL_REL32_LEN > s->len)
            return PV_KEPT_TOO_LONG;
        pad = s->len - PV_CALL_REL32_LEN;
        if (!pv_emit_call(site + pad, s->addr + pad, r->target))
            return PV_KEPT_TOO_LONG;
        break;
    default:
        return PV_KEPT_NO_TEMPLATE;
    }
    pv_fill_padding(site, pad);
    return r->kind == PV_REPL_INLINE ? PV_PATCHED_INLINE : PV_PATCHED_CALL;
}

static void count(struct pv_patch_stats *st, enum pv_op op, enum pv_patch_result r)
{
    st->sites++;
    switch (r) {
    case PV_PATCHED_INLINE:
        st->inline_by_op[op]++;
        break;
    case PV_PATCHED_CALL:
        st->call_by_op[op]++;
        break;
    case PV_KEPT_NO_TEMPLATE:
        st->kept_no_template++;
        break;
    case PV_KEPT_TOO_LONG:
        st->kept_too_long++;
        break;
    case PV_REJECTED:
        st->rejected++;
        break;
    }
}

enum pv_patch_result pv_patch_site(const struct pv_site *s, const struct pv_backend *be,
                                   struct pv_text *text, struct pv_patch_stats *st, char *err,
                                   size_t errlen)
{
    struct pv_replacement repl;
    uint8_t site[PV_SITE_MAX_LEN];
    enum pv_patch_result r;

    if (!pv_site_valid(s, text, err, errlen)) {
        count(st, PV_OP_COUNT, PV_REJECTED);
        return PV_REJECTED;
    }
    memset(&repl, 0, sizeof(repl));
    be->replacement(be, (enum pv_op)s->op, s->addr, &repl);
    r = build_site(s, &repl, site);
    if (r == PV_PATCHED_INLINE || r == PV_PATCHED_CALL)
        memcpy(text->bytes + (s->addr - text->start), site, s->len);
    count(st, (enum pv_op)s->op, r);
    return r;
}

/* Appends to a string like snprintf: keeps counting past the end of buf. */
struct line_out {
    char *buf;
    size_t size;
    size_t len;
};

__attribute__((format(printf, 2, 3))) static void out(struct line_out *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (o->len >= o->size)
        return;
    va_start(ap, fmt);
    n = kvsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* "(" before the first group, "; " between groups. */
static void open_group(struct line_out *o, bool *any)
{
    out(o, *any ? "; " : " (");
    *any = true;
}

static void summarise_ops(struct line_out *o, const struct pv_patch_stats *st, bool *any)
{
    const char *sep = "";

    for (unsigned op = 0; op < PV_OP_COUNT; op++) {
        unsigned in = st->inline_by_op[op], call = st->call_by_op[op];
        if (in == 0 && call == 0)
            continue;
        if (!*any)
            open_group(o, any);
        out(o, "%s%s", sep, pv_op_name(op));
        if (in)
            out(o, " %u inline", in);
        if (call)
            out(o, "%s %u call", in ? " +" : "", call);
        sep = ", ";
    }
}

static void summarise_kept(struct line_out *o, const struct pv_patch_stats *st, bool *any)
{
    unsigned kept = st->kept_no_template + st->kept_too_long;

    if (kept) {
        open_group(o, any);
        out(o, "%u kept indirect:", kept);
        if (st->kept_no_template)
            out(o, " %u no template%s", st->kept_no_template, st->kept_too_long ? "," : "");
        if (st->kept_too_long)
            out(o, " %u too long", st->kept_too_long);
    }
    if (st->rejected) {
        open_group(o, any);
        out(o, "%u rejected", st->rejected);
    }
}

void pv_patch_summary(const struct pv_patch_stats *st, const char *backend, char *buf, size_t size)
{
    struct line_out o = {buf, size, 0};
    unsigned patched = 0;
    bool any = false;

    if (size == 0)
        return;
    buf[0] = '\0';
    for (unsigned op = 0; op < PV_OP_COUNT; op++)
        patched += st->inline_by_op[op] + st->call_by_op[op];
    out(&o, "pv: %s ops, patched %u/%u sites", backend, patched, st->sites);
    summarise_ops(&o, st, &any);
    summarise_kept(&o, st, &any);
    if (any)
        out(&o, ")");
}
