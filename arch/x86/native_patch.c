/* Each template's comment is its assembly; the bytes were checked with
 * `as` + `objdump -d`. Register use follows the site convention (pv/site.h):
 * argument in rdi (and rsi), result in rax. */
#include "arch/x86/native_patch.h"

#include "kernel/string.h"

struct native_template {
    const uint8_t *bytes;
    uint8_t len;
};

#define TEMPLATE(...)                                                                              \
    {                                                                                              \
        (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})                     \
    }

/* enter/leave_lazy_mmu: nothing to batch natively, so the site is all NOPs. */
#define EMPTY_TEMPLATE                                                                             \
    {                                                                                              \
        (const uint8_t[]){0}, 0                                                                    \
    }

static const struct native_template templates[PV_OP_COUNT] = {
    [PV_OP_IRQ_DISABLE] = TEMPLATE(0xfa),               /* cli */
    [PV_OP_IRQ_ENABLE] = TEMPLATE(0xfb),                /* sti */
    [PV_OP_SAVE_FL] = TEMPLATE(0x9c, 0x58),             /* pushf; pop %rax */
    [PV_OP_RESTORE_FL] = TEMPLATE(0x57, 0x9d),          /* push %rdi; popf */
    [PV_OP_SAFE_HALT] = TEMPLATE(0xfb, 0xf4),           /* sti; hlt: hlt in sti's shadow */
    [PV_OP_READ_CR3] = TEMPLATE(0x0f, 0x20, 0xd8),      /* mov %cr3,%rax */
    [PV_OP_WRITE_CR3] = TEMPLATE(0x0f, 0x22, 0xdf),     /* mov %rdi,%cr3 */
    [PV_OP_FLUSH_TLB_ONE] = TEMPLATE(0x0f, 0x01, 0x3f), /* invlpg (%rdi) */
    [PV_OP_SET_PTE] = TEMPLATE(0x48, 0x89, 0x37),       /* mov %rsi,(%rdi) */
    /* xor %eax,%eax; xchg %rax,(%rdi): returns the entry and leaves it
     * clear (xchg with memory is locked), so the CPU cannot set A/D bits
     * in it that the commit would then lose. */
    [PV_OP_PTEP_MODIFY_PROT_START] = TEMPLATE(0x31, 0xc0, 0x48, 0x87, 0x07),
    [PV_OP_PTEP_MODIFY_PROT_COMMIT] = TEMPLATE(0x48, 0x89, 0x37), /* mov %rsi,(%rdi) */
    [PV_OP_ENTER_LAZY_MMU] = EMPTY_TEMPLATE,
    [PV_OP_LEAVE_LAZY_MMU] = EMPTY_TEMPLATE,
};

/* test $0x200,%edi; jz 1f; sti; 1: -- sets IF when flags (rdi) have it and
 * never clears it, avoiding popf (the 2016 LKML proposal). */
static const struct native_template restore_fl_condsti =
    TEMPLATE(0xf7, 0xc7, 0x00, 0x02, 0x00, 0x00, 0x74, 0x01, 0xfb);

const uint8_t *native_template(enum pv_op op, bool condsti, size_t *len)
{
    const struct native_template *t;

    if ((unsigned)op >= PV_OP_COUNT)
        return NULL;
    t = (op == PV_OP_RESTORE_FL && condsti) ? &restore_fl_condsti : &templates[op];
    *len = t->len;
    return t->bytes;
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
