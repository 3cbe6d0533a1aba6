/* The native patch backend: every site gets its op's native instructions
 * inline, the template arch/x86/native/insns.c recorded from the registry.
 * Register use follows the site convention (pv/site.h): argument in rdi
 * (and rsi), result in rax. */
#include "arch/x86/native/patch.h"

#include "kernel/string.h"

extern const struct native_template __start_pv_native_templates[], __stop_pv_native_templates[];

const uint8_t *native_template(enum pv_op op, bool condsti, size_t *len)
{
    unsigned variant = (op == PV_OP_restore_fl && condsti) ? NATIVE_CONDSTI : NATIVE_PLAIN;

    for (const struct native_template *t = __start_pv_native_templates;
         t < __stop_pv_native_templates; t++) {
        if (t->op == op && t->variant == variant) {
            *len = t->len;
            return (const uint8_t *)&t->offset + t->offset;
        }
    }
    return NULL;
}

static void native_replacement(const struct pv_backend *be, enum pv_op op, uint64_t site_addr,
                               struct pv_replacement *out)
{
    const struct native_patch_ctx *ctx = be->ctx;
    size_t len;
    const uint8_t *bytes = native_template(op, ctx->restore_fl_condsti, &len);

    (void)site_addr; /* nothing native is rip-relative */
    if (bytes == NULL || len > sizeof(out->bytes))
        return;
    out->kind = PV_REPL_INLINE;
    memcpy(out->bytes, bytes, len);
    out->len = (uint8_t)len;
}

static const struct native_patch_ctx plain_ctx = {.restore_fl_condsti = false};
static const struct native_patch_ctx condsti_ctx = {.restore_fl_condsti = true};

static const struct pv_backend backends[2] = {
    {.name = "native", .replacement = native_replacement, .ctx = &plain_ctx},
    {.name = "native",
     .replacement = native_replacement,
     .ctx = &condsti_ctx,
     .variant = "restore_fl=condsti"},
};

const struct pv_backend *native_patch_backend(const struct native_patch_ctx *ctx)
{
    return &backends[ctx->restore_fl_condsti ? 1 : 0];
}
