/* pv/patch.c with the native and Xen backends: descriptors as an image
 * (or a tool reading one) would hand them to the patcher, against a text
 * buffer of exactly its size. Checks that a site is rewritten only inside
 * [addr, addr + len), that a rejected or kept site changes nothing, that
 * pv_patch_site agrees with pv_site_valid, and that the counts add up.
 *
 * Input: u64 text start, u8 mode (bits 0-1 backend: native, native
 * condsti, xen; bits 2-3 error buffer size), u64 Xen upcall mask address,
 * u64 base and u32 mask of the Xen direct-call targets, u8 text length and
 * the text, then 16-byte descriptors (pv/site.h) to the end. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/native/patch.h"
#include "pv/patch.h"
#include "pv/site.h"
#include "tests/fuzz/fuzz.h"
#include "xen/pv/patch.h"

_Static_assert(PV_OP_COUNT <= 32, "the direct-call mask has a bit per op");

static const size_t err_sizes[] = {256, 0, 1, 24};

static void check_err(const char *err, size_t errlen)
{
    if (errlen > 0)
        FUZZ_CHECK(memchr(err, '\0', errlen) != NULL);
}

static void check_stats(const struct pv_patch_stats *st, unsigned sites)
{
    unsigned sum = st->kept_no_template + st->kept_too_long + st->rejected;

    for (unsigned op = 0; op < PV_OP_COUNT; op++)
        sum += st->inline_by_op[op] + st->call_by_op[op];
    FUZZ_CHECK(st->sites == sites && sum == sites);
}

/* An irq_disable site, which the native backend makes NOPs and cli. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    uint8_t bytes[7] = {0xff, 0x15, 0, 0, 0, 0, 0x90};
    struct pv_text text = {bytes, 0x1000, sizeof(bytes)};
    struct pv_site s = {.addr = 0x1000, .op = PV_OP_irq_disable, .len = 7};
    struct pv_patch_stats st = {0};
    char err[128];

    (void)argc;
    (void)argv;
    FUZZ_CHECK(pv_patch_site(&s, native_patch_backend(&(struct native_patch_ctx){false}), &text,
                             &st, err, sizeof(err)) == PV_PATCHED_INLINE);
    FUZZ_CHECK(bytes[6] == 0xfa && st.inline_by_op[PV_OP_irq_disable] == 1); /* NOPs, then cli */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = {data, size};
    uint64_t start = fuzz_take(&in, 8);
    unsigned mode = (unsigned)fuzz_take(&in, 1);
    struct xen_patch_ctx xen = {0};
    uint64_t direct_base = fuzz_take(&in, 8);
    uint32_t direct_mask = (uint32_t)fuzz_take(&in, 4);
    size_t text_len = (size_t)fuzz_take(&in, 1), errlen = err_sizes[(mode >> 2) & 3];
    struct pv_backend xen_be;
    const struct pv_backend *be;
    struct pv_patch_stats st = {0};
    struct pv_text text;
    uint8_t *before;
    char err[256], err2[256];
    unsigned sites = 0;

    for (unsigned op = 0; op < PV_OP_COUNT; op++)
        if (direct_mask & (1u << op))
            xen.direct[op] = direct_base + 32 * op;
    switch (mode & 3) {
    case 0:
        be = native_patch_backend(&(struct native_patch_ctx){.restore_fl_condsti = false});
        break;
    case 1:
        be = native_patch_backend(&(struct native_patch_ctx){.restore_fl_condsti = true});
        break;
    default:
        xen_patch_backend_init(&xen_be, &xen);
        be = &xen_be;
        break;
    }
    if (text_len > in.left)
        text_len = in.left;
    text = (struct pv_text){malloc(text_len ? text_len : 1), start, text_len};
    before = malloc(text_len ? text_len : 1);
    FUZZ_CHECK(text.bytes != NULL && before != NULL);
    memcpy(text.bytes, in.p, text_len);
    in.p += text_len;
    in.left -= text_len;

    while (in.left > 0) {
        struct pv_site s = {0};
        enum pv_patch_result r;
        bool valid;

        memcpy(&s, in.p, in.left < sizeof(s) ? in.left : sizeof(s));
        in.p += in.left < sizeof(s) ? in.left : sizeof(s);
        in.left -= in.left < sizeof(s) ? in.left : sizeof(s);
        memcpy(before, text.bytes, text_len);
        valid = pv_site_valid(&s, &text, err2, errlen);
        if (!valid)
            check_err(err2, errlen);
        FUZZ_CHECK(memcmp(before, text.bytes, text_len) == 0);
        r = pv_patch_site(&s, be, &text, &st, err, errlen);
        sites++;
        check_stats(&st, sites);
        FUZZ_CHECK((r == PV_REJECTED) == !valid);
        if (r == PV_REJECTED)
            check_err(err, errlen);
        if (r == PV_PATCHED_INLINE || r == PV_PATCHED_CALL) {
            size_t off = (size_t)(s.addr - start);
            /* pv_site_valid accepted it, so the site lies inside the text. */
            FUZZ_CHECK(off < text_len && s.len <= text_len - off);
            FUZZ_CHECK(memcmp(before, text.bytes, off) == 0);
            FUZZ_CHECK(memcmp(before + off + s.len, text.bytes + off + s.len,
                              text_len - off - s.len) == 0);
            /* So patching the same site again is refused. */
            FUZZ_CHECK(text.bytes[off] != 0xff || text.bytes[off + 1] != 0x15);
        } else {
            FUZZ_CHECK(memcmp(before, text.bytes, text_len) == 0);
        }
    }
    free(before);
    free(text.bytes);
    return 0;
}
