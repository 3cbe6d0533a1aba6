/* pv/patch.c with the native (arch/x86/native/patch.c) and Xen
 * (xen/pv/patch.c) backends: exact bytes written into a buffer standing
 * for text at a given address, NOP padding, rip-relative arithmetic, and
 * the refusal of every kind of bad descriptor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arch/x86/native/patch.h"
#include "pv/patch.h"
#include "pv/site.h"
#include "xen/pv/patch.h"

#define TEXT_START 0x101000ull
#define TEXT_LEN 64
#define SITE_OFF 16
#define CANARY 0xcc /* int3: what surrounds the site, and must survive */

/* An instruction's bytes, written out independently of the code under test. */
struct bytes {
    uint8_t b[PV_SITE_MAX_LEN];
    size_t len;
};

#define BYTES(...) ((struct bytes){{__VA_ARGS__}, sizeof((uint8_t[]){__VA_ARGS__})})

struct text_fixture {
    uint8_t mem[TEXT_LEN];
    struct pv_text text;
    struct pv_site site;
    struct pv_patch_stats stats;
    char err[256];
};

/* Text of CANARY bytes holding one unpatched site, as pv/call.h emits it:
 * call *rel32(%rip) (FF 15 rel32), then single-byte NOPs to len (the
 * patcher reads only the call). */
static void setup_text(struct text_fixture *f, uint64_t start, enum pv_op op, uint8_t len)
{
    static const uint8_t indirect_call[] = {0xff, 0x15, 0x44, 0x33, 0x22, 0x11};

    memset(f, 0, sizeof(*f));
    memset(f->mem, CANARY, sizeof(f->mem));
    memcpy(f->mem + SITE_OFF, indirect_call, sizeof(indirect_call));
    memset(f->mem + SITE_OFF + sizeof(indirect_call), 0x90, len - sizeof(indirect_call));
    f->text = (struct pv_text){f->mem, start, sizeof(f->mem)};
    f->site = (struct pv_site){.addr = start + SITE_OFF, .op = op, .len = len};
}

static uint8_t *site_bytes(struct text_fixture *f)
{
    return f->mem + SITE_OFF;
}

static void assert_canaries_intact(const struct text_fixture *f, size_t site_len)
{
    for (size_t i = 0; i < sizeof(f->mem); i++) {
        if (i >= SITE_OFF && i < SITE_OFF + site_len)
            continue;
        assert_int_equal(f->mem[i], CANARY);
    }
}

static enum pv_patch_result patch(struct text_fixture *f, const struct pv_backend *be)
{
    enum pv_patch_result r =
        pv_patch_site(&f->site, be, &f->text, &f->stats, f->err, sizeof(f->err));
    assert_canaries_intact(f, f->site.len);
    return r;
}

/* Each op's site length, from the registry (pv/op_list.h). */
#define SITE_LEN_(a, table, op) [PV_OP_##op] = PV_OP_LEN(op),
static const uint8_t site_lens[PV_OP_COUNT] = {PV_SITES(SITE_LEN_, ~)};

static uint8_t site_len_of(enum pv_op op)
{
    return site_lens[op];
}

/* The recommended NOPs (Intel SDM vol. 2B, "NOP"), by length. */
static const struct bytes sdm_nops[] = {
    BYTES(0x90),
    BYTES(0x66, 0x90),
    BYTES(0x0f, 0x1f, 0x00),
    BYTES(0x0f, 0x1f, 0x40, 0x00),
    BYTES(0x0f, 0x1f, 0x44, 0x00, 0x00),
    BYTES(0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00),
    BYTES(0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00),
    BYTES(0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
    BYTES(0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00),
};

/* Decodes p[0..len) as recommended NOPs only; returns how many, or -1. */
static int count_recommended_nops(const uint8_t *p, size_t len)
{
    int count = 0;

    while (len > 0) {
        size_t i;
        for (i = 0; i < sizeof(sdm_nops) / sizeof(sdm_nops[0]); i++) {
            const struct bytes *n = &sdm_nops[i];
            if (n->len <= len && memcmp(p, n->b, n->len) == 0)
                break;
        }
        if (i == sizeof(sdm_nops) / sizeof(sdm_nops[0]))
            return -1;
        p += sdm_nops[i].len;
        len -= sdm_nops[i].len;
        count++;
    }
    return count;
}

/* Padding past the longest NOP: jmp rel8 to its end, int3s skipped. */
static bool is_jmp_over_int3s(const uint8_t *p, size_t len)
{
    if (len <= PV_NOP_MAX_LEN || p[0] != 0xeb || p[1] != len - 2)
        return false;
    for (size_t i = 2; i < len; i++)
        if (p[i] != 0xcc)
            return false;
    return true;
}

/* Padding runs as one instruction at any length, none when empty. */
static int padding_instructions(const uint8_t *p, size_t len)
{
    if (is_jmp_over_int3s(p, len))
        return 1;
    return count_recommended_nops(p, len);
}

/* Site = padding of one instruction, then the expected instruction
 * bytes, ending where the site ends. */
static void assert_site_is(struct text_fixture *f, const struct bytes *expected)
{
    size_t pad = f->site.len - expected->len;

    assert_int_equal(padding_instructions(site_bytes(f), pad), pad > 0);
    assert_memory_equal(site_bytes(f) + pad, expected->b, expected->len);
}

static void assert_site_unpatched(struct text_fixture *f)
{
    static const uint8_t indirect_call[] = {0xff, 0x15, 0x44, 0x33, 0x22, 0x11};

    assert_memory_equal(site_bytes(f), indirect_call, sizeof(indirect_call));
    for (size_t i = sizeof(indirect_call); i < f->site.len; i++)
        assert_int_equal(site_bytes(f)[i], 0x90);
}

/* ---- native templates ---- */

/* What a no-paravirt build has in each wrapper; encodings from `as`. */
static struct bytes native_expected(enum pv_op op, bool condsti)
{
    switch (op) {
    case PV_OP_irq_disable:
        return BYTES(0xfa);
    case PV_OP_irq_enable:
        return BYTES(0xfb);
    case PV_OP_save_fl:
        return BYTES(0x9c, 0x58);
    case PV_OP_restore_fl:
        if (condsti)
            return BYTES(0xf7, 0xc7, 0x00, 0x02, 0x00, 0x00, 0x74, 0x01, 0xfb);
        return BYTES(0x57, 0x9d);
    case PV_OP_safe_halt:
        return BYTES(0xfb, 0xf4);
    case PV_OP_read_cr3:
        return BYTES(0x0f, 0x20, 0xd8);
    case PV_OP_write_cr3:
        return BYTES(0x0f, 0x22, 0xdf);
    case PV_OP_flush_tlb_one:
        return BYTES(0x0f, 0x01, 0x3f);
    case PV_OP_set_pte:
    case PV_OP_ptep_modify_prot_commit:
        return BYTES(0x48, 0x89, 0x37);
    case PV_OP_ptep_modify_prot_start:
        return BYTES(0x31, 0xc0, 0x48, 0x87, 0x07);
    default:
        return (struct bytes){{0}, 0}; /* lazy MMU: nothing natively */
    }
}

static void check_native_op(enum pv_op op, bool condsti)
{
    struct native_patch_ctx ctx = {.restore_fl_condsti = condsti};
    const struct pv_backend *be = native_patch_backend(&ctx);
    struct bytes expected = native_expected(op, condsti);
    struct text_fixture f;
    size_t len;
    const uint8_t *t = native_template(op, condsti, &len);

    assert_non_null(t);
    assert_int_equal(len, expected.len);
    assert_memory_equal(t, expected.b, len);

    setup_text(&f, TEXT_START, op, site_len_of(op));
    assert_int_equal(patch(&f, be), PV_PATCHED_INLINE);
    assert_site_is(&f, &expected);
    assert_int_equal(f.stats.inline_by_op[op], 1);
    assert_string_equal(be->name, "native");
}

static void test_native_templates_plain_restore_fl(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PV_OP_COUNT; op++)
        check_native_op(op, false);
}

static void test_native_templates_condsti_restore_fl(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PV_OP_COUNT; op++)
        check_native_op(op, true);
}

static void test_native_lazy_mmu_site_is_one_nop(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_enter_lazy_mmu, PV_INDIRECT_CALL_LEN);
    assert_int_equal(patch(&f, native_patch_backend(&(struct native_patch_ctx){0})),
                     PV_PATCHED_INLINE);
    assert_memory_equal(site_bytes(&f), sdm_nops[5].b, 6);
}

static void test_native_template_unknown_op(void **state)
{
    size_t len = 99;

    (void)state;
    assert_null(native_template(PV_OP_COUNT, false, &len));
    assert_null(native_template(PV_OP_COUNT, true, &len));
}

/* ---- padding ---- */

static void test_fill_padding_every_length(void **state)
{
    (void)state;
    for (size_t len = 0; len <= PV_SITE_MAX_LEN; len++) {
        uint8_t buf[PV_SITE_MAX_LEN + 16];
        memset(buf, 0x5a, sizeof(buf));
        pv_fill_padding(buf + 8, len);
        assert_int_equal(padding_instructions(buf + 8, len), len > 0);
        assert_int_equal(is_jmp_over_int3s(buf + 8, len), len > PV_NOP_MAX_LEN);
        for (size_t i = 0; i < sizeof(buf); i++)
            if (i < 8 || i >= 8 + len)
                assert_int_equal(buf[i], 0x5a);
    }
}

/* ---- direct calls ---- */

static void test_emit_call_rel32(void **state)
{
    uint8_t buf[5];

    (void)state;
    assert_true(pv_emit_call(buf, 0x101000, 0x102000)); /* 0x102000 - 0x101005 = 0xffb */
    assert_memory_equal(buf, ((uint8_t[]){0xe8, 0xfb, 0x0f, 0x00, 0x00}), 5);
    assert_true(pv_emit_call(buf, 0x102000, 0x101000)); /* -0x1005 */
    assert_memory_equal(buf, ((uint8_t[]){0xe8, 0xfb, 0xef, 0xff, 0xff}), 5);
}

static void test_emit_call_reach_limits(void **state)
{
    const uint64_t at = 0x80000000ull, end = at + 5;
    uint8_t buf[5] = {1, 2, 3, 4, 5};

    (void)state;
    assert_true(pv_emit_call(buf, at, end + INT32_MAX));
    assert_memory_equal(buf, ((uint8_t[]){0xe8, 0xff, 0xff, 0xff, 0x7f}), 5);
    assert_true(pv_emit_call(buf, at, end - 0x80000000ull));
    assert_memory_equal(buf, ((uint8_t[]){0xe8, 0x00, 0x00, 0x00, 0x80}), 5);

    memset(buf, CANARY, sizeof(buf));
    assert_false(pv_emit_call(buf, at, end + INT32_MAX + 1ull));
    assert_false(pv_emit_call(buf, at, end - 0x80000001ull));
    assert_false(pv_emit_call(buf, 0x1000, 0xffffffff80000000ull));
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], CANARY);
}

/* ---- indirect calls: the site as linked ---- */

static void test_emit_indirect_call_rel32(void **state)
{
    uint8_t buf[6];

    (void)state;
    assert_true(pv_emit_indirect_call(buf, 0x101000, 0x102000)); /* 0x102000 - 0x101006 */
    assert_memory_equal(buf, ((uint8_t[]){0xff, 0x15, 0xfa, 0x0f, 0x00, 0x00}), 6);
    assert_true(pv_emit_indirect_call(buf, 0x102000, 0x101000)); /* -0x1006 */
    assert_memory_equal(buf, ((uint8_t[]){0xff, 0x15, 0xfa, 0xef, 0xff, 0xff}), 6);
}

static void test_emit_indirect_call_reach_limits(void **state)
{
    const uint64_t at = 0x80000000ull, end = at + 6;
    uint8_t buf[6];

    (void)state;
    assert_true(pv_emit_indirect_call(buf, at, end + INT32_MAX));
    assert_memory_equal(buf, ((uint8_t[]){0xff, 0x15, 0xff, 0xff, 0xff, 0x7f}), 6);
    memset(buf, CANARY, sizeof(buf));
    assert_false(pv_emit_indirect_call(buf, at, end + INT32_MAX + 1ull));
    assert_false(pv_emit_indirect_call(buf, at, end - 0x80000001ull));
    for (size_t i = 0; i < sizeof(buf); i++)
        assert_int_equal(buf[i], CANARY);
}

/* The call first, then one padding instruction to the end; nothing past
 * len, and a site the patcher accepts. */
static void test_emit_linked_site(void **state)
{
    (void)state;
    for (uint8_t len = PV_INDIRECT_CALL_LEN; len <= PV_SITE_MAX_LEN; len++) {
        struct text_fixture f;

        setup_text(&f, TEXT_START, PV_OP_irq_disable, len);
        memset(site_bytes(&f), CANARY, len);
        assert_true(pv_emit_linked_site(site_bytes(&f), f.site.addr, len, f.site.addr + 0x100));
        assert_memory_equal(site_bytes(&f), ((uint8_t[]){0xff, 0x15, 0xfa, 0x00, 0x00, 0x00}), 6);
        assert_int_equal(padding_instructions(site_bytes(&f) + 6, len - 6u), len > 6);
        assert_canaries_intact(&f, len);
        assert_true(pv_site_valid(&f.site, &f.text, f.err, sizeof(f.err)));
    }
}

/* ---- Xen ---- */

/* The same nine bytes at any site: the store goes through the GS base,
 * not rip, so nothing in it depends on where the site is. */
static void check_xen_irq_disable(uint64_t text_start)
{
    struct xen_patch_ctx ctx = {0};
    struct pv_backend be;
    struct text_fixture f;
    uint32_t off = XEN_UPCALL_MASK_GS_OFFSET;
    struct bytes movb = BYTES(0x65, 0xc6, 0x04, 0x25, (uint8_t)off, (uint8_t)(off >> 8),
                              (uint8_t)(off >> 16), (uint8_t)(off >> 24), 0x01);

    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, text_start, PV_OP_irq_disable, PV_OP_LEN(irq_disable));
    assert_int_equal(patch(&f, &be), PV_PATCHED_INLINE);
    assert_site_is(&f, &movb);
}

static void test_xen_irq_disable_any_site(void **state)
{
    (void)state;
    check_xen_irq_disable(TEXT_START);
    check_xen_irq_disable(0x40000000);
}

static void test_xen_irq_disable_exact_bytes(void **state)
{
    struct xen_patch_ctx ctx = {0};
    struct pv_backend be;
    struct text_fixture f;

    (void)state;
    /* vcpu_info starts 64 bytes into struct percpu; its mask is byte 1. */
    assert_int_equal(XEN_UPCALL_MASK_GS_OFFSET, 0x41);
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_irq_disable, PV_OP_LEN(irq_disable));
    assert_int_equal(patch(&f, &be), PV_PATCHED_INLINE);
    assert_memory_equal(site_bytes(&f),
                        ((uint8_t[]){0x65, 0xc6, 0x04, 0x25, 0x41, 0x00, 0x00, 0x00, 0x01}), 9);
    assert_string_equal(be.name, "xen");
}

static void test_xen_save_fl_exact_bytes(void **state)
{
    struct xen_patch_ctx ctx = {0};
    struct pv_backend be;
    struct text_fixture f;

    (void)state;
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_save_fl, PV_OP_LEN(save_fl));
    assert_int_equal(patch(&f, &be), PV_PATCHED_INLINE);
    /* cmpb $1, %gs:0x41; sbb %eax, %eax: inline even with no direct target */
    assert_memory_equal(
        site_bytes(&f),
        ((uint8_t[]){0x65, 0x80, 0x3c, 0x25, 0x41, 0x00, 0x00, 0x00, 0x01, 0x19, 0xc0}), 11);
    assert_int_equal(f.stats.inline_by_op[PV_OP_save_fl], 1);
}

/* Unmask, test pending, jz over the call, call force_upcall: the call's
 * rel32 counts from the site's end, where the patcher placed it. */
static void test_xen_irq_enable_exact_bytes(void **state)
{
    struct xen_patch_ctx ctx = {.force_upcall = TEXT_START + 0x2000};
    struct pv_backend be;
    struct text_fixture f;
    uint32_t rel = (uint32_t)(ctx.force_upcall - (TEXT_START + SITE_OFF + 25));

    (void)state;
    assert_int_equal(XEN_UPCALL_PENDING_GS_OFFSET, 0x40);
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_irq_enable, PV_OP_LEN(irq_enable));
    assert_int_equal(PV_OP_LEN(irq_enable), 25);
    assert_int_equal(patch(&f, &be), PV_PATCHED_INLINE);
    assert_memory_equal(site_bytes(&f),
                        ((uint8_t[]){0x65,
                                     0xc6,
                                     0x04,
                                     0x25,
                                     0x41,
                                     0x00,
                                     0x00,
                                     0x00,
                                     0x00, /* */
                                     0x65,
                                     0x80,
                                     0x3c,
                                     0x25,
                                     0x40,
                                     0x00,
                                     0x00,
                                     0x00,
                                     0x00, /* */
                                     0x74,
                                     0x05,
                                     0xe8,
                                     (uint8_t)rel,
                                     (uint8_t)(rel >> 8),
                                     (uint8_t)(rel >> 16),
                                     (uint8_t)(rel >> 24)}),
                        25);
    assert_canaries_intact(&f, 25);
}

/* bt $9, %edi, then the call to the CF-taking entry, no padding. */
static void test_xen_restore_fl_exact_bytes(void **state)
{
    struct xen_patch_ctx ctx = {.restore_fl_cf = TEXT_START - 0x100};
    struct pv_backend be;
    struct text_fixture f;
    uint32_t rel = (uint32_t)(ctx.restore_fl_cf - (TEXT_START + SITE_OFF + 9));

    (void)state;
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_restore_fl, PV_OP_LEN(restore_fl));
    assert_int_equal(patch(&f, &be), PV_PATCHED_INLINE);
    assert_memory_equal(
        site_bytes(&f),
        ((uint8_t[]){0x0f, 0xba, 0xe7, 0x09, 0xe8, (uint8_t)rel, (uint8_t)(rel >> 8),
                     (uint8_t)(rel >> 16), (uint8_t)(rel >> 24)}),
        9);
}

/* A force_upcall out of rel32 reach keeps the site as it was. */
static void test_xen_irq_enable_out_of_reach(void **state)
{
    struct xen_patch_ctx ctx = {.force_upcall = 0xffffffff80000000ull};
    struct pv_backend be;
    struct text_fixture f;

    (void)state;
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_irq_enable, PV_OP_LEN(irq_enable));
    assert_int_equal(patch(&f, &be), PV_KEPT_TOO_LONG);
    assert_site_unpatched(&f);
}

static void test_xen_direct_call(void **state)
{
    struct xen_patch_ctx ctx = {0};
    struct pv_backend be;
    struct text_fixture f;

    (void)state;
    ctx.direct[PV_OP_irq_enable] = 0x100800; /* 0x100800 - 0x101016 = -0x816 */
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_irq_enable, PV_INDIRECT_CALL_LEN);
    assert_int_equal(patch(&f, &be), PV_PATCHED_CALL);
    assert_memory_equal(site_bytes(&f), ((uint8_t[]){0x90, 0xe8, 0xea, 0xf7, 0xff, 0xff}), 6);
    assert_int_equal(f.stats.call_by_op[PV_OP_irq_enable], 1);
}

static void test_xen_call_out_of_range_kept(void **state)
{
    struct xen_patch_ctx ctx = {0};
    struct pv_backend be;
    struct text_fixture f;

    (void)state;
    /* The call ends where the site ends: 2^31 past that is out of reach. */
    ctx.direct[PV_OP_irq_enable] = TEXT_START + SITE_OFF + PV_INDIRECT_CALL_LEN + 0x80000000ull;
    xen_patch_backend_init(&be, &ctx);
    setup_text(&f, TEXT_START, PV_OP_irq_enable, PV_INDIRECT_CALL_LEN);
    assert_int_equal(patch(&f, &be), PV_KEPT_TOO_LONG);
    assert_site_unpatched(&f);
    assert_int_equal(f.stats.kept_too_long, 1);
}

static void test_xen_none_kept(void **state)
{
    struct xen_patch_ctx ctx = {0};
    struct pv_backend be;
    struct text_fixture f;

    (void)state;
    xen_patch_backend_init(&be, &ctx);
    for (unsigned op = 0; op < PV_OP_COUNT; op++) {
        if (op == PV_OP_irq_disable || op == PV_OP_save_fl)
            continue; /* their mask store and load need nothing from the context */
        setup_text(&f, TEXT_START, op, site_len_of(op));
        assert_int_equal(patch(&f, &be), PV_KEPT_NO_TEMPLATE);
        assert_site_unpatched(&f);
        assert_int_equal(f.stats.kept_no_template, 1);
    }
}

/* ---- sites too short for the replacement ---- */

static void long_inline(const struct pv_backend *be, enum pv_op op, uint64_t site_addr,
                        struct pv_replacement *out)
{
    (void)be, (void)op, (void)site_addr;
    out->kind = PV_REPL_INLINE;
    out->len = 10;
    memset(out->bytes, 0x90, out->len);
}

static void test_replacement_longer_than_site_kept(void **state)
{
    const struct pv_backend be = {.name = "long", .replacement = long_inline};
    struct native_patch_ctx condsti = {.restore_fl_condsti = true};
    struct xen_patch_ctx xctx = {0};
    struct pv_backend xen;
    struct text_fixture f;

    (void)state;
    for (uint8_t len = PV_INDIRECT_CALL_LEN; len < 10; len++) {
        setup_text(&f, TEXT_START, PV_OP_set_pte, len);
        assert_int_equal(patch(&f, &be), PV_KEPT_TOO_LONG);
        assert_site_unpatched(&f);
    }
    /* 9-byte condsti restore_fl, 9-byte movb: each needs its longer site. */
    setup_text(&f, TEXT_START, PV_OP_restore_fl, PV_INDIRECT_CALL_LEN);
    assert_int_equal(patch(&f, native_patch_backend(&condsti)), PV_KEPT_TOO_LONG);
    assert_site_unpatched(&f);
    xen_patch_backend_init(&xen, &xctx);
    setup_text(&f, TEXT_START, PV_OP_irq_disable, PV_INDIRECT_CALL_LEN);
    assert_int_equal(patch(&f, &xen), PV_KEPT_TOO_LONG);
    assert_site_unpatched(&f);
    assert_int_equal(f.stats.kept_too_long, 1);
}

/* ---- bad descriptors ---- */

static const struct pv_backend *native(void)
{
    return native_patch_backend(&(struct native_patch_ctx){0});
}

/* Patching is refused with exactly `message`, nothing written, counted. */
static void assert_rejected(struct text_fixture *f, const char *message)
{
    uint8_t before[TEXT_LEN];

    memcpy(before, f->mem, sizeof(before));
    assert_false(pv_site_valid(&f->site, &f->text, f->err, sizeof(f->err)));
    assert_string_equal(f->err, message);
    memset(f->err, 0, sizeof(f->err));
    assert_int_equal(pv_patch_site(&f->site, native(), &f->text, &f->stats, f->err, sizeof(f->err)),
                     PV_REJECTED);
    assert_string_equal(f->err, message);
    assert_memory_equal(f->mem, before, sizeof(before));
    assert_int_equal(f->stats.rejected, 1);
    assert_int_equal(f->stats.sites, 1);
}

static void test_reject_unknown_op(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_COUNT, 6);
    assert_rejected(&f, "pv: site at 0x101010: unknown op 13 (ops are 0..12)");
}

static void test_reject_address_outside_text(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_irq_enable, 6);
    f.site.addr = TEXT_START - 1;
    assert_rejected(&f, "pv: site at 0x100fff (irq_enable): address outside text "
                        "[0x101000, 0x101040)");
    setup_text(&f, TEXT_START, PV_OP_irq_enable, 6);
    f.site.addr = TEXT_START + TEXT_LEN;
    assert_rejected(&f, "pv: site at 0x101040 (irq_enable): address outside text "
                        "[0x101000, 0x101040)");
}

static void test_reject_site_crossing_end_of_text(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_irq_enable, 6);
    f.site.addr = TEXT_START + TEXT_LEN - 5;
    assert_rejected(&f, "pv: site at 0x10103b (irq_enable): 6 bytes cross the end of text "
                        "at 0x101040");
}

/* Near the top of the address space addr + len would wrap to a small number. */
static void test_reject_site_wrapping_address_space(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, 0xffffffffffffffc0ull, PV_OP_irq_enable, 15);
    f.site.addr = UINT64_MAX;
    assert_false(pv_site_valid(&f.site, &f.text, f.err, sizeof(f.err)));
    assert_non_null(strstr(f.err, "15 bytes cross the end of text"));
    f.site.addr = UINT64_MAX - 14; /* exactly the last 15 bytes: in text */
    assert_false(pv_site_valid(&f.site, &f.text, f.err, sizeof(f.err)));
    assert_non_null(strstr(f.err, "not the indirect call")); /* canaries, not FF 15 */
}

static void test_reject_bad_lengths(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_save_fl, 6);
    f.site.len = 0;
    assert_rejected(&f, "pv: site at 0x101010 (save_fl): length 0 is shorter than the "
                        "6-byte indirect call");
    setup_text(&f, TEXT_START, PV_OP_save_fl, 6);
    f.site.len = 5;
    assert_rejected(&f, "pv: site at 0x101010 (save_fl): length 5 is shorter than the "
                        "6-byte indirect call");
    setup_text(&f, TEXT_START, PV_OP_save_fl, 32);
    f.site.len = 33;
    assert_rejected(&f, "pv: site at 0x101010 (save_fl): length 33 is over the 32-byte "
                        "maximum");
}

static void test_reject_nonzero_reserved(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_save_fl, 6);
    f.site.reserved = 0x100;
    assert_rejected(&f, "pv: site at 0x101010 (save_fl): reserved field is 0x100, not 0");
}

static void test_reject_site_without_indirect_call(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_save_fl, 6);
    site_bytes(&f)[1] = 0x25; /* ff 25: jmp *rel32(%rip), not a call */
    assert_rejected(&f, "pv: site at 0x101010 (save_fl): starts with ff 25, not the indirect "
                        "call ff 15 (patched twice, or a stale descriptor)");
}

static void test_reject_site_patched_twice(void **state)
{
    struct text_fixture f;

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_irq_disable, 7);
    assert_int_equal(patch(&f, native()), PV_PATCHED_INLINE);
    memset(&f.stats, 0, sizeof(f.stats));
    assert_rejected(&f, "pv: site at 0x101010 (irq_disable): starts with 66 0f, not the "
                        "indirect call ff 15 (patched twice, or a stale descriptor)");
}

static void test_reject_message_truncated_safely(void **state)
{
    struct text_fixture f;
    char small[12];

    (void)state;
    setup_text(&f, TEXT_START, PV_OP_COUNT, 6);
    memset(small, 'x', sizeof(small));
    assert_false(pv_site_valid(&f.site, &f.text, small, sizeof(small)));
    assert_string_equal(small, "pv: site at");
    assert_false(pv_site_valid(&f.site, &f.text, small, 0));
    assert_int_equal(small[0], 'p');
}

/* ---- names and summary ---- */

static void test_op_names(void **state)
{
    (void)state;
    assert_string_equal(pv_op_name(PV_OP_irq_disable), "irq_disable");
    assert_string_equal(pv_op_name(PV_OP_ptep_modify_prot_start), "ptep_modify_prot_start");
    assert_string_equal(pv_op_name(PV_OP_leave_lazy_mmu), "leave_lazy_mmu");
    assert_string_equal(pv_op_name(PV_OP_COUNT), "unknown");
    for (unsigned a = 0; a < PV_OP_COUNT; a++)
        for (unsigned b = a + 1; b < PV_OP_COUNT; b++)
            assert_string_not_equal(pv_op_name(a), pv_op_name(b));
}

static void test_summary_native(void **state)
{
    struct pv_patch_stats st = {0};
    char line[PV_PATCH_SUMMARY_LEN];

    (void)state;
    st.sites = 46;
    st.inline_by_op[PV_OP_irq_disable] = 31;
    st.inline_by_op[PV_OP_save_fl] = 12;
    st.kept_no_template = 2;
    st.rejected = 1;
    pv_patch_summary(&st, "native", line, sizeof(line));
    assert_string_equal(line, "pv: native ops, patched 43/46 sites (irq_disable 31 inline, "
                              "save_fl 12 inline; 2 kept indirect: 2 no template; 1 rejected)");
}

static void test_summary_mixed_and_empty(void **state)
{
    struct pv_patch_stats st = {0};
    char line[PV_PATCH_SUMMARY_LEN];

    (void)state;
    pv_patch_summary(&st, "xen", line, sizeof(line));
    assert_string_equal(line, "pv: xen ops, patched 0/0 sites");
    st.sites = 9;
    st.inline_by_op[PV_OP_irq_disable] = 3;
    st.call_by_op[PV_OP_irq_disable] = 2;
    st.call_by_op[PV_OP_set_pte] = 1;
    st.kept_no_template = 1;
    st.kept_too_long = 2;
    pv_patch_summary(&st, "xen", line, sizeof(line));
    assert_string_equal(line, "pv: xen ops, patched 6/9 sites (irq_disable 3 inline + 2 call, "
                              "set_pte 1 call; 3 kept indirect: 1 no template, 2 too long)");
}

static void test_summary_worst_case_fits(void **state)
{
    struct pv_patch_stats st;
    char line[PV_PATCH_SUMMARY_LEN];

    (void)state;
    memset(&st, 0xff, sizeof(st)); /* every count UINT_MAX */
    pv_patch_summary(&st, "a-backend-name-of-32-characters!", line, sizeof(line));
    assert_true(strlen(line) < sizeof(line) - 1);
    assert_int_equal(line[strlen(line) - 1], ')');
}

static void test_summary_truncates_safely(void **state)
{
    struct pv_patch_stats st = {0};
    char line[20];

    (void)state;
    st.sites = 1;
    st.inline_by_op[PV_OP_irq_enable] = 1;
    pv_patch_summary(&st, "native", line, sizeof(line));
    assert_string_equal(line, "pv: native ops, pat");
}

/* A whole run: counts add up, every site patched exactly once. */
static void test_stats_over_several_sites(void **state)
{
    struct pv_patch_stats st = {0};
    struct text_fixture f;
    char line[PV_PATCH_SUMMARY_LEN];

    (void)state;
    for (unsigned op = 0; op < PV_OP_COUNT; op++) {
        setup_text(&f, TEXT_START, op, site_len_of(op));
        f.stats = st;
        patch(&f, native());
        st = f.stats;
    }
    assert_int_equal(st.sites, PV_OP_COUNT);
    pv_patch_summary(&st, "native", line, sizeof(line));
    assert_non_null(strstr(line, "patched 13/13 sites (irq_disable 1 inline, "));
    assert_non_null(strstr(line, "leave_lazy_mmu 1 inline)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_templates_plain_restore_fl),
        cmocka_unit_test(test_native_templates_condsti_restore_fl),
        cmocka_unit_test(test_native_lazy_mmu_site_is_one_nop),
        cmocka_unit_test(test_native_template_unknown_op),
        cmocka_unit_test(test_fill_padding_every_length),
        cmocka_unit_test(test_xen_save_fl_exact_bytes),
        cmocka_unit_test(test_xen_irq_enable_exact_bytes),
        cmocka_unit_test(test_xen_irq_enable_out_of_reach),
        cmocka_unit_test(test_xen_restore_fl_exact_bytes),
        cmocka_unit_test(test_emit_call_rel32),
        cmocka_unit_test(test_emit_call_reach_limits),
        cmocka_unit_test(test_emit_indirect_call_rel32),
        cmocka_unit_test(test_emit_indirect_call_reach_limits),
        cmocka_unit_test(test_emit_linked_site),
        cmocka_unit_test(test_xen_irq_disable_any_site),
        cmocka_unit_test(test_xen_irq_disable_exact_bytes),
        cmocka_unit_test(test_xen_direct_call),
        cmocka_unit_test(test_xen_call_out_of_range_kept),
        cmocka_unit_test(test_xen_none_kept),
        cmocka_unit_test(test_replacement_longer_than_site_kept),
        cmocka_unit_test(test_reject_unknown_op),
        cmocka_unit_test(test_reject_address_outside_text),
        cmocka_unit_test(test_reject_site_crossing_end_of_text),
        cmocka_unit_test(test_reject_site_wrapping_address_space),
        cmocka_unit_test(test_reject_bad_lengths),
        cmocka_unit_test(test_reject_nonzero_reserved),
        cmocka_unit_test(test_reject_site_without_indirect_call),
        cmocka_unit_test(test_reject_site_patched_twice),
        cmocka_unit_test(test_reject_message_truncated_safely),
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_summary_native),
        cmocka_unit_test(test_summary_mixed_and_empty),
        cmocka_unit_test(test_summary_worst_case_fits),
        cmocka_unit_test(test_summary_truncates_safely),
        cmocka_unit_test(test_stats_over_several_sites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
