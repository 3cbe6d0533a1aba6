/* The parsers of linux-user/bench/net.c on the host, on text as Debian's
 * Linux writes it: the client's end line (whole or not at all, as
 * patchbay's counters service takes it), /proc/timer_list's idle and
 * iowait figures, and the card's lines of /proc/interrupts natively
 * (virtio0-*) and in a domU (netfront's vif0-q0-*, named after vif-0).
 * Built and run by test_linux_net.py. */
#include "linux-user/bench/net.c"

static int passed, failed;

static void check(const char *what, int ok)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (ok)
        passed++;
    else
        failed++;
}

/* A FILE over text, as the program reads /proc. */
static FILE *text(const char *s)
{
    return fmemopen((void *)s, strlen(s), "r");
}

/* The kernel's own layout: a space before idle_sleeptime's colon. */
static const char timer_list[] = "Timer List Version: v0.9\n"
                                 "cpu: 0\n"
                                 " clock 0:\n"
                                 "  .base:               pK-error\n"
                                 "  .idle_calls     : 246\n"
                                 "  .idle_sleeptime : 6440235484 nsecs\n"
                                 "  .iowait_sleeptime: 1000 nsecs\n"
                                 "  .idle_expires   : 10200000000 nsecs\n"
                                 "cpu: 1\n"
                                 "  .idle_sleeptime : 5 nsecs\n"
                                 "  .iowait_sleeptime: 0 nsecs\n";

static const char domu_interrupts[] = "           CPU0       \n"
                                      "  0:        817  xen-percpu    -virq      timer0\n"
                                      "  5:         80   xen-dyn    -event     xenbus\n"
                                      "  7:        212  xen-dyn-lateeoi    -event     vif0-q0-tx\n"
                                      "  8:        216  xen-dyn-lateeoi    -event     vif0-q0-rx\n"
                                      "  9:          4  xen-dyn-lateeoi    -event     vif01-q0-rx\n"
                                      "NMI:          0   Non-maskable interrupts\n";

static const char native_interrupts[] =
    "           CPU0       CPU1       \n"
    " 24:          0          1  PCI-MSIX-0000:00:03.0   0-edge      virtio0-config\n"
    " 25:        500          2  PCI-MSIX-0000:00:03.0   1-edge      virtio0-input.0\n"
    " 26:        300          4  PCI-MSIX-0000:00:03.0   2-edge      virtio0-output.0\n"
    " 27:         99          0  PCI-MSIX-0000:00:04.0   0-edge      virtio1-input.0\n";

static void check_end(void)
{
    struct net_report r = {0};

    check("end: the client's line, its four counts",
          net_parse_end("end sent=500 received=499 wrong=0 lost=1\n", &r) && r.sent == 500 &&
              r.received == 499 && r.wrong == 0 && r.lost == 1);
    check("end: without its newline too",
          net_parse_end("end sent=1 received=1 wrong=0 lost=0", &r));
    check("end: a field missing is no end", !net_parse_end("end sent=1 received=1 wrong=0", &r));
    check("end: a field out of order is no end",
          !net_parse_end("end received=1 sent=1 wrong=0 lost=0", &r));
    check("end: anything after it is no end",
          !net_parse_end("end sent=1 received=1 wrong=0 lost=0 x", &r));
    check("end: 20 digits is no end",
          !net_parse_end("end sent=12345678901234567890 received=1 wrong=0 lost=0", &r));
    check("end: stats is no end", !net_parse_end("stats", &r));
}

static void check_idle(void)
{
    struct net_sample s;
    FILE *f = text(timer_list);

    idle_in(f, &s);
    fclose(f);
    check("timer_list: idle and iowait summed over both CPUs, two CPUs",
          s.idle_ns == 6440235484ull + 1000 + 5 && s.cpus == 2);
}

static void check_interrupts(void)
{
    FILE *f;
    uint64_t n;
    char name[] = "vif-0";

    irq_name(name);
    check("irq_name: vif-0's interrupts are vif0-*", strcmp(name, "vif0") == 0);
    snprintf(ifname, sizeof(ifname), "eth0");
    snprintf(devname, sizeof(devname), "vif0");
    f = text(domu_interrupts);
    n = interrupts_in(f);
    fclose(f);
    check("interrupts: netfront's two lines, not vif01's nor the others", n == 212 + 216);
    snprintf(devname, sizeof(devname), "virtio0");
    f = text(native_interrupts);
    n = interrupts_in(f);
    fclose(f);
    check("interrupts: virtio0's three vectors on both CPUs, not virtio1's",
          n == 0 + 1 + 500 + 2 + 300 + 4);
}

int main(void)
{
    check_end();
    check_idle();
    check_interrupts();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
