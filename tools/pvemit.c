/* pvemit: what each backend writes at given paravirt sites, from the same
 * sources the kernel patches itself with (tools/pvsites runs it).
 *
 *   pvemit [--xen] [--xen-direct NAME=ADDR]...
 *   pvemit --list-ops | --list-entries
 *
 * Reads one site a line on stdin, "ADDR OP LEN" (hex address, op name,
 * decimal length), and writes one line per backend:
 *
 *   ADDR BACKEND RESULT HEX
 *
 * BACKEND is native, native-condsti (restore_fl as the conditional sti),
 * and xen when --xen or --xen-direct is given. NAME is an op (what its
 * sites may call directly) or one of --list-entries (what Xen's inline
 * templates call, XEN_PATCH_ENTRIES). RESULT is inline, call,
 * kept-no-template, kept-too-long or rejected; HEX is the whole site after
 * patching, or "-" when the site is not rewritten. */
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

struct emitter {
    const char *label;
    struct pv_backend be;
};

static void usage(void)
{
    fprintf(stderr, "usage: pvemit [--xen] [--xen-direct NAME=ADDR]... < sites\n"
                    "       pvemit --list-ops | --list-entries\n");
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
static int parse_args(int argc, char **argv, struct xen_patch_ctx *xen)
{
    int have_xen = 0;

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
        if (strcmp(argv[i], "--xen") == 0) {
            have_xen = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--xen-direct") == 0)
            parse_direct(argv[++i], xen);
        else
            usage();
        have_xen = 1;
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

/* Patches a stand-in for the unpatched site (call *0(%rip), NOPs) at its
 * address, exactly as the kernel would, and prints the outcome. */
static void emit_site(const struct emitter *em, uint64_t addr, unsigned op, unsigned len)
{
    uint8_t bytes[PV_SITE_MAX_LEN] = {0xff, 0x15, 0, 0, 0, 0}; /* call *rel32(%rip) */
    struct pv_text text = {bytes, addr, sizeof(bytes)};
    struct pv_site site = {.addr = addr, .op = (uint16_t)op, .len = (uint8_t)len};
    struct pv_patch_stats stats = {0};
    char err[256];
    enum pv_patch_result r;

    memset(bytes + PV_INDIRECT_CALL_LEN, 0x90, sizeof(bytes) - PV_INDIRECT_CALL_LEN);
    if (len > PV_SITE_MAX_LEN)
        site.len = PV_SITE_MAX_LEN + 1; /* still rejected, whatever the input said */
    r = pv_patch_site(&site, &em->be, &text, &stats, err, sizeof(err));
    printf("0x%" PRIx64 " %s %s ", addr, em->label, result_name(r));
    if (r == PV_PATCHED_INLINE || r == PV_PATCHED_CALL) {
        for (unsigned i = 0; i < len; i++)
            printf("%02x", bytes[i]);
        printf("\n");
    } else {
        printf("-\n");
    }
    if (r == PV_REJECTED)
        fprintf(stderr, "%s\n", err);
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
    struct emitter emitters[3] = {
        {"native", *native_patch_backend(&(struct native_patch_ctx){false})},
        {"native-condsti", *native_patch_backend(&(struct native_patch_ctx){true})},
        {"xen", {0}},
    };
    size_t n_emitters = 2;
    char line[256];
    unsigned lineno = 0;

    if (parse_args(argc, argv, &xen_ctx)) {
        xen_patch_backend_init(&emitters[2].be, &xen_ctx);
        n_emitters = 3;
    }
    while (fgets(line, sizeof(line), stdin) != NULL) {
        uint64_t addr;
        unsigned op, len;
        if (!parse_site(line, ++lineno, &addr, &op, &len))
            return 2;
        for (size_t i = 0; i < n_emitters; i++)
            emit_site(&emitters[i], addr, op, len);
    }
    return 0;
}
