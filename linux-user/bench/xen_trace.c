/* Hypercalls per mprotect on Linux under Xen, from its own trace events
 * (the xen:* events of ftrace, built into Debian's kernel): each
 * xen_mc_flush line says how many queued hypercalls it issued, one as a
 * plain hypercall and several as one multicall, so one mprotect's lines
 * give what patchbay's mm_stats count (mm/vm_bench.c prints its own in
 * the same "mmcounts:" line): hypercalls and the entries of multicalls;
 * and Linux's single-page TLB flushes (INVLPG) and ptes committed. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "linux-user/bench/linux_bench.h"

#define TRACING "/sys/kernel/tracing"

struct xen_counts {
    unsigned hypercalls, mc_entries, invlpg, pte_commits;
};

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_TRUNC), ok;

    if (fd < 0)
        return 0;
    ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* One trace line, by its event: xen_mc_flush says "flushing N hypercalls". */
static void count_line(const char *line, struct xen_counts *c)
{
    const char *flush = strstr(line, " xen_mc_flush: flushing ");
    unsigned n;

    if (flush && sscanf(flush, " xen_mc_flush: flushing %u hypercalls", &n) == 1) {
        c->hypercalls += n > 0;
        c->mc_entries += n > 1 ? n : 0; /* one alone is a plain hypercall */
    } else if (strstr(line, " xen_mmu_flush_tlb_one_user:")) {
        c->invlpg++;
    } else if (strstr(line, " xen_mmu_ptep_modify_prot_commit:")) {
        c->pte_commits++;
    }
}

/* The events of one mprotect of pages pages. The events stay enabled
 * throughout (turning one on patches the kernel's text, which under Xen
 * is hypercalls of its own): only the recording is switched on around it. */
static int trace_one(unsigned pages, struct xen_counts *c)
{
    char line[512];
    FILE *f;
    int rc;

    if (!write_file(TRACING "/trace", "") || !write_file(TRACING "/tracing_on", "1"))
        return 0;
    rc = mm_mprotect_once(pages);
    write_file(TRACING "/tracing_on", "0");
    f = fopen(TRACING "/trace", "r");
    if (rc != 0 || !f)
        return 0;
    *c = (struct xen_counts){0};
    while (fgets(line, sizeof(line), f))
        count_line(line, c);
    fclose(f);
    return 1;
}

void xen_trace_mprotect(bool under_xen)
{
    static const unsigned sizes[] = {1, 16, 512};

    if (!under_xen)
        return;
    if (!write_file(TRACING "/tracing_on", "0") || !write_file(TRACING "/events/xen/enable", "1")) {
        printf("linux-bench: no xen:* trace events (no tracefs?): hypercalls not counted\n");
        return;
    }
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct xen_counts c;
        if (!trace_one(sizes[i], &c)) {
            printf("linux-bench: tracing mprotect_%u failed\n", sizes[i]);
            continue;
        }
        printf("mmcounts: name=mprotect_%u hypercalls=%u mc_entries=%u invlpg=%u "
               "pte_commits=%u\n",
               sizes[i], c.hypercalls, c.mc_entries, c.invlpg, c.pte_commits);
    }
}
