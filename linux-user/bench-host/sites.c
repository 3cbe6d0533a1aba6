/* The code buffer: each form's sites, written by the kernel's patcher
 * (pv/patch.c) with the backends' own emitters, exactly as the kernel
 * writes them over its call sites, inside a loop, and each site alone
 * followed by a ret for the checks. The buffer is written while only
 * writable, then made only executable (W^X), and lies near the program's
 * text so every site's rel32 reaches the thunks and table slots there. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/x86/native/backend.h"
#include "arch/x86/native/patch.h"
#include "linux-user/bench-host/bench_host.h"
#include "pv/ops.h"
#include "pv/patch.h"
#include "xen/pv/backend.h"
#include "xen/pv/patch.h"

#define CODE_SIZE (64 * 1024)
#define CODE_ALIGN 64 /* each loop's first site, and each site alone, starts a cache line */
#define HINT_STEP (2ul << 20)

/* A loop around the sites: rbx counts, rdi is the sites' argument. The
 * sites keep every register but rax (pv/site.h), so nothing is reloaded.
 * The jnz is assembled here against the template's own top; placed with
 * sites in between, its rel32 grows by their length. */
__asm__(".pushsection .rodata\n"
        ".globl bench_host_frame_head, bench_host_frame_top, bench_host_frame_jump_end\n"
        ".globl bench_host_frame_ret, bench_host_frame_end\n"
        "bench_host_frame_head:\n\t"
        "push %rbx\n\t"
        "mov %rdi, %rbx\n\t"
        "mov %rsi, %rdi\n"
        "bench_host_frame_top:\n\t"
        "sub $1, %rbx\n\t"
        "{disp32} jnz bench_host_frame_top\n"
        "bench_host_frame_jump_end:\n\t"
        "pop %rbx\n"
        "bench_host_frame_ret:\n\t"
        "ret\n"
        "bench_host_frame_end:\n\t"
        ".popsection");
extern const uint8_t bench_host_frame_head[], bench_host_frame_top[], bench_host_frame_jump_end[],
    bench_host_frame_ret[], bench_host_frame_end[];

typedef void (*loop_fn)(uint64_t n, uint64_t arg);
typedef uint64_t (*site_fn)(uint64_t arg);

/* Where each form's code went. */
struct placed {
    uint64_t loop;
    uint64_t in_loop[FORM_MAX_SITES]; /* each site inside the loop */
    uint64_t alone[FORM_MAX_SITES];   /* each site followed by a ret */
};

static uint8_t *code;
static size_t used;
static uint64_t empty_loop;
static struct placed placed[MAX_FORMS];
static struct xen_patch_ctx xen_ctx, xen_direct_ctx;
static struct pv_backend xen_be, xen_direct_be;

static const char *const way_names[] = {
    [WAY_LINKED] = "as linked",
    [WAY_NATIVE] = "native form",
    [WAY_NATIVE_CONDSTI] = "native form, condsti",
    [WAY_XEN] = "xen form",
    [WAY_XEN_DIRECT] = "xen form, direct call",
};

/* tools/pvemit's name for the form a way writes. */
static const char *const pvemit_forms[] = {
    [WAY_LINKED] = "linked", [WAY_NATIVE] = "native",  [WAY_NATIVE_CONDSTI] = "native-condsti",
    [WAY_XEN] = "xen",       [WAY_XEN_DIRECT] = "xen",
};

#define OP_LEN_(a, table, op) [PV_OP_##op] = PV_OP_LEN(op),
static const uint8_t op_len[PV_OP_COUNT] = {PV_SITES(OP_LEN_, ~)};

/* The table is the native backend's, as native_install() fills it; Xen's
 * backend is given the entries the image's own would be (xen/pv/irq.c),
 * or, for the direct form, only the table's thunks to call. */
static void backends_init(void)
{
    pv_irq_ops = (struct pv_irq_ops)PV_TABLE(native, irq);
    xen_ctx.force_upcall = (uint64_t)xen_pv_force_upcall;
    xen_ctx.restore_fl_cf = (uint64_t)xen_pv_restore_fl_cf;
    xen_patch_backend_init(&xen_be, &xen_ctx);
    pv_ops_current_targets(xen_direct_ctx.direct);
    xen_patch_backend_init(&xen_direct_be, &xen_direct_ctx);
}

static const struct pv_backend *backend_of(enum site_way way)
{
    switch (way) {
    case WAY_NATIVE:
        return native_patch_backend(&(struct native_patch_ctx){false});
    case WAY_NATIVE_CONDSTI:
        return native_patch_backend(&(struct native_patch_ctx){true});
    case WAY_XEN:
        return &xen_be;
    case WAY_XEN_DIRECT:
        return &xen_direct_be;
    default:
        return NULL;
    }
}

/* Writes site s as it is at addr into p: linked, then patched as the
 * kernel's patcher patches it. */
static void emit_site(uint8_t *p, uint64_t addr, struct site_spec s)
{
    struct pv_site site = {.addr = addr, .op = (uint16_t)s.op, .len = op_len[s.op]};
    struct pv_text text = {p, addr, site.len};
    struct pv_patch_stats stats = {0};
    const struct pv_backend *be = backend_of(s.way);
    enum pv_patch_result r;
    char err[256] = "";

    if (!pv_emit_linked_site(p, addr, site.len, pv_op_slot(s.op)))
        die("%s's table slot is out of rel32 reach of 0x%" PRIx64, pv_op_name(s.op), addr);
    if (be == NULL)
        return;
    r = pv_patch_site(&site, be, &text, &stats, err, sizeof(err));
    if (r != PV_PATCHED_INLINE && r != PV_PATCHED_CALL)
        die("the %s of %s was not written at 0x%" PRIx64 " (result %d) %s", way_names[s.way],
            pv_op_name(s.op), addr, (int)r, err);
}

static void code_map(void)
{
    uint64_t hint = ((uint64_t)(uintptr_t)forms + (1ul << 28)) & ~(HINT_STEP - 1);

    for (int i = 0; i < 64; i++, hint += HINT_STEP) {
        void *p = mmap((void *)hint, CODE_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == (void *)hint) {
            code = p;
            return;
        }
        if (p != MAP_FAILED)
            munmap(p, CODE_SIZE);
    }
    die("cannot map a code buffer within rel32 reach of the program's text");
}

/* Room for len bytes such that offset `aligned` into them starts a
 * cache line; returns their address. */
static uint64_t take(size_t len, size_t aligned)
{
    size_t at = (used + aligned + CODE_ALIGN - 1) / CODE_ALIGN * CODE_ALIGN - aligned;

    if (at + len > CODE_SIZE)
        die("the code buffer is too small for every form");
    used = at + len;
    return (uint64_t)(uintptr_t)(code + at);
}

static uint8_t *at(uint64_t addr)
{
    return code + (addr - (uint64_t)(uintptr_t)code);
}

/* A form of no sites: the empty loop. */
static const struct form no_form = {.name = "empty/frame"};

/* The loop around f's sites. */
static uint64_t build_loop(const struct form *f, struct placed *where)
{
    size_t head = (size_t)(bench_host_frame_top - bench_host_frame_head);
    size_t tail = (size_t)(bench_host_frame_end - bench_host_frame_top);
    size_t jump = (size_t)(bench_host_frame_jump_end - bench_host_frame_top) - 4; /* its rel32 */
    unsigned n = f->n_sites, body = 0;
    uint64_t start, p;
    int32_t rel;

    for (unsigned i = 0; i < n; i++)
        body += op_len[f->sites[i].op];
    start = take(head + body + tail, head);
    p = start + head;
    memcpy(at(start), bench_host_frame_head, head);
    for (unsigned i = 0; i < n; i++) {
        where->in_loop[i] = p;
        emit_site(at(p), p, f->sites[i]);
        p += op_len[f->sites[i].op];
    }
    memcpy(at(p), bench_host_frame_top, tail);
    memcpy(&rel, at(p + jump), sizeof(rel));
    rel -= (int32_t)body;
    memcpy(at(p + jump), &rel, sizeof(rel));
    return start;
}

void code_build(const char *corrupt)
{
    const struct form *bad = corrupt ? form_by_name(corrupt) : NULL;
    struct placed none;

    if (corrupt && (bad == NULL || bad->n_sites == 0))
        die("--corrupt %s: no form of that name with sites", corrupt);
    backends_init();
    code_map();
    empty_loop = build_loop(&no_form, &none);
    for (size_t f = 0; f < n_forms; f++) {
        placed[f].loop = build_loop(&forms[f], &placed[f]);
        for (unsigned i = 0; i < forms[f].n_sites; i++) {
            size_t len = op_len[forms[f].sites[i].op];
            uint64_t p = take(len + 1, 0);
            emit_site(at(p), p, forms[f].sites[i]);
            memcpy(at(p + len), bench_host_frame_ret, 1);
            placed[f].alone[i] = p;
        }
    }
    if (bad) /* the last byte of its first site in its loop */
        *at(placed[bad - forms].in_loop[0] + op_len[bad->sites[0].op] - 1) ^= 1;
}

void code_seal(void)
{
    if (mprotect(code, CODE_SIZE, PROT_READ | PROT_EXEC) != 0)
        die("cannot make the code buffer executable");
}

/* One placed site against the emitter's bytes for it. */
static bool site_bytes_match(const struct form *f, unsigned i, uint64_t addr)
{
    uint8_t fresh[PV_SITE_MAX_LEN];
    const uint8_t *ran = (const uint8_t *)(uintptr_t)addr;
    unsigned len = op_len[f->sites[i].op];

    emit_site(fresh, addr, f->sites[i]);
    for (unsigned b = 0; b < len; b++) {
        if (ran[b] != fresh[b]) {
            fflush(stdout);
            fprintf(stderr,
                    "bench-host: %s: site %u (%s, %s) at 0x%" PRIx64 " runs other bytes than "
                    "the emitter writes: byte %u is %02x, not %02x\n",
                    f->name, i + 1, pv_op_name(f->sites[i].op), way_names[f->sites[i].way], addr, b,
                    ran[b], fresh[b]);
            return false;
        }
    }
    return true;
}

bool code_check_bytes(void)
{
    for (size_t f = 0; f < n_forms; f++)
        for (unsigned i = 0; i < forms[f].n_sites; i++)
            if (!site_bytes_match(&forms[f], i, placed[f].in_loop[i]) ||
                !site_bytes_match(&forms[f], i, placed[f].alone[i]))
                return false;
    return true;
}

/* What tools/pvemit needs to write the same form at the same address. */
static void pvemit_args(struct site_spec s, char *buf, size_t size)
{
    buf[0] = '\0';
    if (s.way == WAY_XEN)
        snprintf(buf, size,
                 "--xen-direct force_upcall=0x%" PRIx64 " --xen-direct restore_fl_cf=0x%" PRIx64,
                 xen_ctx.force_upcall, xen_ctx.restore_fl_cf);
    else if (s.way == WAY_XEN_DIRECT)
        snprintf(buf, size, "--xen-direct %s=0x%" PRIx64, pv_op_name(s.op),
                 xen_direct_ctx.direct[s.op]);
}

void code_print_sites(void)
{
    char args[160];

    for (size_t f = 0; f < n_forms; f++) {
        for (unsigned i = 0; i < forms[f].n_sites; i++) {
            struct site_spec s = forms[f].sites[i];
            const uint8_t *b = (const uint8_t *)(uintptr_t)placed[f].in_loop[i];
            pvemit_args(s, args, sizeof(args));
            printf("host: site=%s index=%u op=%s len=%u addr=0x%" PRIx64
                   " pvemit_form=%s pvemit=\"%s\" bytes=\"",
                   forms[f].name, i, pv_op_name(s.op), op_len[s.op], placed[f].in_loop[i],
                   pvemit_forms[s.way], args);
            for (unsigned k = 0; k < op_len[s.op]; k++)
                printf("%02x", b[k]);
            printf("\"\n");
        }
    }
}

void code_run_loop(const struct form *f, uint64_t n, uint64_t arg)
{
    uint64_t loop = f ? placed[f - forms].loop : empty_loop;

    if (n == 0) /* the loop counts down before it tests */
        return;
    ((loop_fn)(uintptr_t)loop)(n, arg);
}

uint64_t code_run_site(const struct form *f, unsigned i, uint64_t arg)
{
    return ((site_fn)(uintptr_t)placed[f - forms].alone[i])(arg);
}
