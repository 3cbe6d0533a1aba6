/* pvemit: what each platform writes at given paravirt sites, from the
 * same sources the kernel patches itself with (tools/pvsites runs it).
 *
 *   pvemit [--xen] [--xen-direct NAME=ADDR]...
 *   pvemit --list-ops | --list-entries | --list-platforms
 *
 * Reads one site a line on stdin, "ADDR OP LEN" (hex address, op name,
 * decimal length), and writes one line per platform and site form it
 * writes:
 *
 *   ADDR PLATFORM FORM RESULT HEX
 *
 * PLATFORM is a pv_info.name: native, xen-pv (only when --xen or
 * --xen-direct is given) and xen-pvh. FORM is the patch backend the
 * platform's sites take: native, native-condsti (restore_fl as the
 * conditional sti, what pv.restore_fl=condsti picks) or xen; PLATFORMS
 * below says which platform takes which, and each form is run once per
 * site, so two platforms of one form print the very same bytes. NAME is
 * an op (what its sites may call directly) or one of --list-entries
 * (what Xen's inline templates call, XEN_PATCH_ENTRIES). RESULT is
 * inline, call, kept-no-template, kept-too-long or rejected; HEX is the
 * whole site after patching, or "-" when the site is not rewritten.
 * --list-platforms prints the table: "PLATFORM FORM..." a line. */
#include <stdint.h>

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xen/xen.h>

#include "arch/x86/native/patch.h"
#include "pv/patch.h"
#include "pv/site.h"
#include "xen/pv/patch.h"

/* The site forms: the kernel's patch backends (struct pv_backend), the
 * native one with either restore_fl template. */
enum form { FORM_NATIVE, FORM_NATIVE_CONDSTI, FORM_XEN, FORM_COUNT };
static const char *const form_labels[FORM_COUNT] = {"native", "native-condsti", "xen"};

/* Which forms each platform writes at its sites, the one it patches with
 * by default first. The kernel decides this in each platform's install
 * function, by the patch table it installs (arch/x86/native/install.c,
 * xen/pv/install.c, xen/pvh/install.c: PVH's is PV_TABLE(native, patch)),
 * and pv.restore_fl picks a native template wherever the native forms
 * are in use. This table only repeats it for the tools, so
 * tests/pv/test_platform_sites.py boots every platform with pv.trace=1
 * and checks what the kernel wrote against what it makes pvsites say. */
#define MAX_PLATFORM_FORMS 2
static const struct platform {
    const char *name; /* pv_info.name */
    unsigned n_forms;
    enum form forms[MAX_PLATFORM_FORMS];
} PLATFORMS[] = {
    {"native", 2, {FORM_NATIVE, FORM_NATIVE_CONDSTI}},
    {"xen-pv", 1, {FORM_XEN}},
    {"xen-pvh", 2, {FORM_NATIVE, FORM_NATIVE_CONDSTI}},
};
#define NR_PLATFORMS (sizeof(PLATFORMS) / sizeof(PLATFORMS[0]))

/* What one form makes of one site. */
struct outcome {
    enum pv_patch_result result;
    uint8_t bytes[PV_SITE_MAX_LEN];
};

static void usage(void)
{
    fprintf(stderr, "usage: pvemit [--xen] [--xen-direct NAME=ADDR]... < sites\n"
                    "       pvemit --list-ops | --list-entries | --list-platforms\n");
    exit(2);
}

static uint64_t parse_addr(const char *s)
{
    char *end;
    uint64_t v;

    errno = 0;
    v = strtoull(s, &end, 16);
    if (errno != 0 || end == s || *end != '\0') {
        fprintf(stderr, "pvemit: bad address '%s'\n", s);
        exit(2);
    }
    return v;
}

/* Returns PV_OP_COUNT for a name no op has. */
static enum pv_op op_by_name(const char *name)
{
    for (unsigned op = 0; op < PV_OP_COUNT; op++)
        if (strcmp(pv_op_name(op), name) == 0)
            return op;
    return PV_OP_COUNT;
}

static void parse_direct(const char *arg, struct xen_patch_ctx *ctx)
{
    char name[64];
    const char *eq = strchr(arg, '=');
    enum pv_op op;

    if (eq == NULL || (size_t)(eq - arg) >= sizeof(name))
        usage();
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
#define ENTRY_BY_NAME_(field)                                                                      \
    if (strcmp(name, #field) == 0) {                                                               \
        ctx->field = parse_addr(eq + 1);                                                           \
        return;                                                                                    \
    }
    XEN_PATCH_ENTRIES(ENTRY_BY_NAME_)
    op = op_by_name(name);
    if (op == PV_OP_COUNT) {
        fprintf(stderr, "pvemit: unknown op or entry '%s'\n", name);
        exit(2);
    }
    ctx->direct[op] = parse_addr(eq + 1);
}

/* Returns whether any Xen option was given. */
static bool parse_args(int argc, char **argv, struct xen_patch_ctx *xen)
{
    bool have_xen = false;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list-ops") == 0) {
            for (unsigned op = 0; op < PV_OP_COUNT; op++)
                printf("%u %s\n", op, pv_op_name(op));
            exit(0);
        }
        if (strcmp(argv[i], "--list-entries") == 0) {
#define PRINT_ENTRY_(field) printf("%s\n", #field);
            XEN_PATCH_ENTRIES(PRINT_ENTRY_)
            exit(0);
        }
        if (strcmp(argv[i], "--list-platforms") == 0) {
            for (size_t p = 0; p < NR_PLATFORMS; p++) {
                printf("%s", PLATFORMS[p].name);
                for (unsigned f = 0; f < PLATFORMS[p].n_forms; f++)
                    printf(" %s", form_labels[PLATFORMS[p].forms[f]]);
                printf("\n");
            }
            exit(0);
        }
        if (strcmp(argv[i], "--xen") == 0) {
            have_xen = true;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--xen-direct") == 0)
            parse_direct(argv[++i], xen);
        else
            usage();
        have_xen = true;
    }
    return have_xen;
}

static const char *result_name(enum pv_patch_result r)
{
    switch (r) {
    case PV_PATCHED_INLINE:
        return "inline";
    case PV_PATCHED_CALL:
        return "call";
    case PV_KEPT_NO_TEMPLATE:
        return "kept-no-template";
    case PV_KEPT_TOO_LONG:
        return "kept-too-long";
    default:
        return "rejected";
    }
}

/* Patches a stand-in for the site as linked (call *0(%rip), padding) at
 * its address, exactly as the kernel would. The stand-in fills the buffer
 * whatever len says: a bad len is the patcher's to reject. */
static void emit_site(const struct pv_backend *be, uint64_t addr, unsigned op, unsigned len,
                      struct outcome *out)
{
    struct pv_text text = {out->bytes, addr, sizeof(out->bytes)};
    struct pv_site site = {.addr = addr, .op = (uint16_t)op, .len = (uint8_t)len};
    struct pv_patch_stats stats = {0};
    char err[256];

    /* A slot right after the call, rel32 0: always in reach. */
    pv_emit_linked_site(out->bytes, addr, sizeof(out->bytes), addr + PV_INDIRECT_CALL_LEN);
    if (len > PV_SITE_MAX_LEN)
        site.len = PV_SITE_MAX_LEN + 1; /* still rejected, whatever the input said */
    out->result = pv_patch_site(&site, be, &text, &stats, err, sizeof(err));
    if (out->result == PV_REJECTED)
        fprintf(stderr, "%s\n", err);
}

static void print_outcome(uint64_t addr, const char *platform, enum form form,
                          const struct outcome *o, unsigned len)
{
    printf("0x%" PRIx64 " %s %s %s ", addr, platform, form_labels[form], result_name(o->result));
    if (o->result == PV_PATCHED_INLINE || o->result == PV_PATCHED_CALL) {
        for (unsigned i = 0; i < len; i++)
            printf("%02x", o->bytes[i]);
        printf("\n");
    } else {
        printf("-\n");
    }
}

/* One input line, "ADDR OP LEN"; false after saying what is wrong. */
static bool parse_site(const char *line, unsigned lineno, uint64_t *addr, unsigned *op,
                       unsigned *len)
{
    char name[64];

    if (sscanf(line, "%" SCNx64 " %63s %u", addr, name, len) != 3) {
        fprintf(stderr, "pvemit: line %u: expected 'ADDR OP LEN'\n", lineno);
        return false;
    }
    *op = op_by_name(name);
    if (*op == PV_OP_COUNT) {
        fprintf(stderr, "pvemit: line %u: unknown op '%s'\n", lineno, name);
        return false;
    }
    return true;
}

/* Also the fuzz target's entry (tests/fuzz/fuzz_pvemit.c): nothing may
 * outlive one call. */
int main(int argc, char **argv)
{
    struct xen_patch_ctx xen_ctx = {0};
    struct pv_backend forms[FORM_COUNT] = {
        [FORM_NATIVE] = *native_patch_backend(&(struct native_patch_ctx){false}),
        [FORM_NATIVE_CONDSTI] = *native_patch_backend(&(struct native_patch_ctx){true}),
    };
    bool have_xen = parse_args(argc, argv, &xen_ctx);
    char line[256];
    unsigned lineno = 0;

    if (have_xen)
        xen_patch_backend_init(&forms[FORM_XEN], &xen_ctx);
    while (fgets(line, sizeof(line), stdin) != NULL) {
        struct outcome outcomes[FORM_COUNT];
        uint64_t addr;
        unsigned op, len;
        if (!parse_site(line, ++lineno, &addr, &op, &len))
            return 2;
        for (unsigned f = 0; f < FORM_COUNT; f++)
            if (f != FORM_XEN || have_xen)
                emit_site(&forms[f], addr, op, len, &outcomes[f]);
        for (size_t p = 0; p < NR_PLATFORMS; p++)
            for (unsigned i = 0; i < PLATFORMS[p].n_forms; i++) {
                enum form f = PLATFORMS[p].forms[i];
                if (f != FORM_XEN || have_xen)
                    print_outcome(addr, PLATFORMS[p].name, f, &outcomes[f], len);
            }
    }
    return 0;
}
