#include "xen/pv/start_info.h"

#include "kernel/string.h"
#include "mm/pgtable.h"
#include "xen/xen_public.h"

/* Reads one field whatever the page's alignment. */
#define LOAD_FIELD(page_, field_, out_)                                                            \
    do {                                                                                           \
        _Static_assert(sizeof(out_) == sizeof(((start_info_t *)0)->field_), #field_);              \
        memcpy(&(out_), (page_) + offsetof(start_info_t, field_), sizeof(out_));                   \
    } while (0)

/* *a = round_up(*a, page), or false if that wraps. */
static bool page_round_up(uint64_t *a)
{
    if (*a > UINT64_MAX - (PAGE_SIZE - 1))
        return false;
    *a = (*a + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
    return true;
}

/* *end = max(*end, round_up(base + n * unit)), or false if any step wraps. */
static bool extend_end(uint64_t *end, uint64_t base, uint64_t n, uint64_t unit)
{
    uint64_t last;

    if (unit != 0 && n > UINT64_MAX / unit)
        return false;
    if (base > UINT64_MAX - n * unit)
        return false;
    last = base + n * unit;
    if (!page_round_up(&last))
        return false;
    if (last > *end)
        *end = last;
    return true;
}

/* Xen ABI (start_info): after the image Xen packs, page by page, any
 * initrd, the frame list, start_info, a domU's console and store pages,
 * its bootstrap page tables and a bootstrap stack; rsp at entry is that
 * stack's top. All of it stays Xen's to describe, so none of it is free. */
static bool bootstrap_end(const uint8_t *page, uint64_t page_addr, uint64_t xen_stack_top,
                          uint64_t *end)
{
    uint64_t nr_pages, pt_base, nr_pt_frames, mfn_list;

    LOAD_FIELD(page, nr_pages, nr_pages);
    LOAD_FIELD(page, pt_base, pt_base);
    LOAD_FIELD(page, nr_pt_frames, nr_pt_frames);
    LOAD_FIELD(page, mfn_list, mfn_list);
    *end = 0;
    return extend_end(end, xen_stack_top, 0, 0) &&
           extend_end(end, pt_base, nr_pt_frames, PAGE_SIZE) &&
           extend_end(end, mfn_list, nr_pages, sizeof(xen_pfn_t)) &&
           extend_end(end, page_addr, 1, sizeof(start_info_t));
}

const char *xen_start_info_parse(const uint8_t *page, size_t len, uint64_t page_addr,
                                 uint64_t kernel_end, uint64_t xen_stack_top, struct boot_info *bi)
{
    uint64_t nr_pages, end;

    if (len < sizeof(start_info_t))
        return "start_info shorter than its structure";
    if (memcmp(page + offsetof(start_info_t, magic), XEN_START_INFO_MAGIC,
               strlen(XEN_START_INFO_MAGIC)))
        return "bad start_info magic";
    LOAD_FIELD(page, nr_pages, nr_pages);
    if (nr_pages == 0 || nr_pages > UINT64_MAX / PAGE_SIZE)
        return "nr_pages is 0 or past the address space";
    if (!bootstrap_end(page, page_addr, xen_stack_top, &end))
        return "bootstrap data wraps the address space";
    if (end < kernel_end)
        return "bootstrap data ends before the kernel image";
    boot_info_add_ram(bi, 0, nr_pages * PAGE_SIZE);
    boot_info_add_reserved(bi, kernel_end, end - kernel_end);
    boot_info_set_cmdline(bi, (const char *)page + offsetof(start_info_t, cmd_line),
                          MAX_GUEST_CMDLINE);
    /* Xen ABI: Xen copies at most MAX_GUEST_CMDLINE - 1 bytes of dom0's
     * line and says nothing when it cuts, so a line that fills them all
     * may have been longer. */
    if (strlen(bi->cmdline) >= MAX_GUEST_CMDLINE - 1)
        bi->cmdline_truncated = true;
    return NULL;
}
