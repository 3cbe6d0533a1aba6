/* Hypercall sites (xen/hypercall.h): each left as the assembler wrote it,
 * a call into the hypercall page, or rewritten at boot as the inline
 * `mov $nr, %eax; syscall` (xen.hypercall=). */
#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/string.h"
#include "mm/kernel_map.h"
#include "pv/patch.h"
#include "xen/pv/backend.h"
#include "xen/hypercall.h"

extern const struct xen_hypercall_site __xen_hypercall_sites_start[], __xen_hypercall_sites_end[];

#define CALL_AT 2 /* the call follows the 2-byte NOP */

enum { HYPERCALL_INLINE, HYPERCALL_PAGE };
static const char *const hypercall_modes[] = {"inline", "page", 0};
static int hypercall_mode = HYPERCALL_INLINE;
OPTION_ENUM_WHERE(PV_CAP_XEN_PV, hypercall_mode, "xen.hypercall", hypercall_modes,
                  "hypercalls as an inline syscall at each site, or calls into the hypercall page");

/* Only a site still in its assembled form is rewritten: inside the text,
 * and a call that reaches its hypercall's stub, so a stale or corrupt
 * descriptor writes nothing. */
static bool assembled_as_call(const struct xen_hypercall_site *s)
{
    const uint8_t *p = (const uint8_t *)s->addr;
    int32_t rel;

    if (s->addr < (uint64_t)__text_start || s->addr >= (uint64_t)__text_end ||
        (uint64_t)__text_end - s->addr < XEN_HYPERCALL_SITE_LEN || s->nr >= 4096 / 32)
        return false;
    if (p[CALL_AT] != 0xe8) /* call rel32 */
        return false;
    memcpy(&rel, p + CALL_AT + 1, sizeof(rel));
    return s->addr + XEN_HYPERCALL_SITE_LEN + (int64_t)rel == (uint64_t)hypercall_page + s->nr * 32;
}

/* Xen ABI (x86-64 PV): `syscall` from the guest kernel is a hypercall,
 * its number in eax; the stub in the hypercall page runs the same. */
static void inline_form(uint32_t nr, uint8_t *out)
{
    out[0] = 0xb8; /* mov $imm32, %eax */
    memcpy(out + 1, &nr, sizeof(nr));
    out[5] = 0x0f; /* syscall */
    out[6] = 0x05;
}

static void trace(const struct xen_hypercall_site *s, const uint8_t *before)
{
    kprintf("xen: hypercall site %lx %s:", s->addr, s->name);
    pv_trace_bytes(before, (const uint8_t *)s->addr, XEN_HYPERCALL_SITE_LEN);
    kprintf("\n");
}

/* Runs once the options are read and before any other CPU starts, while
 * the text is still writable (as pv_patch_all): one plain copy per site.
 * pv.trace=1 shows each site's bytes before and after. */
void xen_hypercall_setup(void)
{
    unsigned n = (unsigned)(__xen_hypercall_sites_end - __xen_hypercall_sites_start);

    if (hypercall_mode == HYPERCALL_PAGE) {
        kprintf("xen: hypercalls through the hypercall page: %u sites call its stubs\n", n);
        return;
    }
    for (const struct xen_hypercall_site *s = __xen_hypercall_sites_start;
         s < __xen_hypercall_sites_end; s++) {
        uint8_t before[XEN_HYPERCALL_SITE_LEN], site[XEN_HYPERCALL_SITE_LEN];

        if (!assembled_as_call(s))
            panic("xen: hypercall site at 0x%lx (nr %u) is not the call to its stub it was "
                  "assembled as",
                  s->addr, s->nr);
        memcpy(before, (const void *)s->addr, sizeof(before));
        inline_form(s->nr, site);
        memcpy((void *)s->addr, site, sizeof(site));
        if (pv_patch_tracing())
            trace(s, before);
    }
    kprintf("xen: hypercalls inline: %u sites rewritten to mov $nr, %%eax; syscall\n", n);
}
