#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "pv/patch.h"

extern const struct pv_site __pv_sites_start[], __pv_sites_end[];

static const char *const patch_choices[] = {"on", "off", 0};
static int patch_choice;
OPTION_ENUM(patch_choice, "pv.patch", patch_choices, "rewrite paravirt call sites at boot");
static bool trace_sites;
OPTION_BOOL(trace_sites, "pv.trace", "print each site's bytes before and after patching");
static const struct pv_backend *patched_with;

static void print_bytes(const uint8_t *p, unsigned len)
{
    for (unsigned i = 0; i < len; i++)
        kprintf(" %02x", p[i]);
}

void pv_trace_bytes(const uint8_t *before, const uint8_t *after, unsigned len)
{
    print_bytes(before, len);
    kprintf(" ->");
    print_bytes(after, len);
}

static void trace_site(const struct pv_site *s, const uint8_t *before, const uint8_t *after,
                       enum pv_patch_result r)
{
    static const char *const results[] = {
        [PV_PATCHED_INLINE] = "inline",
        [PV_PATCHED_CALL] = "call",
        [PV_KEPT_NO_TEMPLATE] = "kept: no template",
        [PV_KEPT_TOO_LONG] = "kept: too long",
        [PV_REJECTED] = "rejected",
    };

    kprintf("pv: site %lx %s len %u:", s->addr, pv_op_name(s->op), s->len);
    pv_trace_bytes(before, after, s->len);
    kprintf(" (%s)\n", results[r]);
}

struct pv_text pv_kernel_text(void)
{
    return (struct pv_text){(uint8_t *)__text_start, (uint64_t)__text_start,
                            (uint64_t)(__text_end - __text_start)};
}

/* Tour 80: The patcher, natively.
 * Once the tables are installed, this walks .pv_sites once. For each site
 * the backend offers a replacement; natively `irq_disable` gets `cli`, so
 * `ff 15 xx xx xx xx 0f 1f 00` becomes `0f 1f 84 00 00 00 00 00 fa`: one
 * NOP, then the instruction a kernel built without paravirt has, last so
 * that a thread stopped at its end resumes at the site's end. A
 * replacement that does not fit, or an op without a template, keeps its
 * indirect call and is counted. This runs before `kernel_map_init` makes
 * text read-only. */
void pv_patch_all(const struct pv_backend *be)
{
    struct pv_patch_stats stats = {0};
    char line[PV_PATCH_SUMMARY_LEN];
    struct pv_text text;

    if (patch_choice != 0) {
        kprintf("pv: %s ops, patching off: %ld sites keep their indirect calls\n", be->name,
                (long)(__pv_sites_end - __pv_sites_start));
        return;
    }
    text = pv_kernel_text();
    for (const struct pv_site *s = __pv_sites_start; s < __pv_sites_end; s++) {
        uint8_t before[PV_SITE_MAX_LEN];
        /* Only a valid descriptor may be read from; pv_patch_site checks again. */
        if (trace_sites && pv_site_valid(s, &text, line, sizeof(line)))
            memcpy(before, (const void *)s->addr, s->len);
        enum pv_patch_result r = pv_patch_site(s, be, &text, &stats, line, sizeof(line));
        if (r == PV_REJECTED)
            kprintf("%s\n", line);
        else if (trace_sites)
            trace_site(s, before, (const uint8_t *)s->addr, r);
    }
    pv_patch_summary(&stats, be->name, line, sizeof(line));
    kprintf("%s\n", line);
    patched_with = be;
}

bool pv_patch_tracing(void)
{
    return trace_sites;
}

const struct pv_backend *pv_patched_with(void)
{
    return patched_with;
}
