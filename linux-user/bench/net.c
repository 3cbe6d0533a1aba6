/* bench.net: Linux's own network stack on the doors patchbay's cards use,
 * serving the same clients with the same protocol as patchbay's
 * kernel/net/udp.c: UDP echo on port 7, the counters service on port 9
 * ("stats", and "end sent=N received=N wrong=N lost=N", which ends the
 * run); Linux answers ping itself. Natively the initramfs holds the virtio
 * stack and virtio_net with net.order naming them in load order (tools/run
 * --linux --net); in a domU it holds xen-netfront.ko (tools/run --linux
 * --domu --net). The interface gets net.ip= (a /24, as both doors'
 * networks are) through ioctls; at the client's end the program prints
 * the client's counts and one net-stats: line, counted from the interface
 * coming up, the contract tools/pbtools/result_lines.py reads. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux-user/bench/linux_bench.h"

#define NET_ORDER "/net.order"
#define NETFRONT_KO "/xen-netfront.ko"
#define ECHO_PORT 7
#define COUNTERS_PORT 9
#define NETMASK "255.255.255.0"
#define WAIT_MS 10000
#define DATAGRAM_MAX 2048 /* more than a 1500-byte packet's payload */
#define REQUEST_MAX 80    /* patchbay's counters service takes less */
#define NAME_MAX_LEN 32

static char ip[16] = "10.0.2.15";
static unsigned long timeout_s = 60;
static int bad_timeout;
static const char *driver;
static char ifname[IFNAMSIZ], devname[NAME_MAX_LEN];

/* What the run counts, as at the interface's coming up and at the end. */
struct net_sample {
    uint64_t rx, tx, interrupts, idle_ns, ns;
    unsigned cpus;
};

/* The client's end: "end sent=N received=N wrong=N lost=N". */
struct net_report {
    unsigned long long sent, received, wrong, lost;
};

int net_arg(const char *arg)
{
    char *end;
    unsigned long v;

    if (strncmp(arg, "net.ip=", 7) == 0) {
        snprintf(ip, sizeof(ip), "%s", arg + 7);
        return 1;
    }
    if (strncmp(arg, "net.timeout=", 12) == 0) {
        v = strtoul(arg + 12, &end, 10);
        /* patchbay's net.timeout bounds (kernel/net_workload.c) */
        bad_timeout = !(*end == 0 && v >= 1 && v <= 86400);
        timeout_s = bad_timeout ? timeout_s : v;
        return 1;
    }
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};

    nanosleep(&t, 0);
}

/* The card's driver: net.order's modules in order, or xen-netfront. */
static const char *load_driver(void)
{
    int r = modules_load_order(NET_ORDER);

    if (r < 0) {
        if (access(NETFRONT_KO, R_OK) != 0)
            return "bench.net but no network driver in the initramfs (tools/run --linux --net)";
        driver = "xen-netfront";
        return module_load(NETFRONT_KO) ? 0 : "cannot load xen-netfront.ko";
    }
    driver = "virtio-net";
    return r ? "cannot load a module of net.order" : 0;
}

/* A device's name as its interrupts carry it: netfront names them after
 * its device without the dash (vif-0's are vif0-q0-tx and vif0-q0-rx);
 * virtio's keep theirs (virtio0-input.0). */
static void irq_name(char *name)
{
    for (char *w = name;; name++)
        if (*name != '-' && !(*w++ = *name))
            return;
}

/* The first interface that is not loopback, once the driver made one. */
static const char *find_interface(void)
{
    char link[PATH_MAX], path[64];
    ssize_t n;

    for (int ms = 0; !ifname[0]; ms += 10) {
        DIR *d = opendir("/sys/class/net");
        struct dirent *e;

        while (d && (e = readdir(d)))
            if (e->d_name[0] != '.' && strcmp(e->d_name, "lo") != 0 && !ifname[0])
                snprintf(ifname, sizeof(ifname), "%.15s", e->d_name);
        if (d)
            closedir(d);
        if (ifname[0])
            break;
        if (ms >= WAIT_MS)
            return "no network interface within 10 s of loading its driver";
        sleep_ms(10);
    }
    /* Its device's name, which names its interrupts too. */
    snprintf(path, sizeof(path), "/sys/class/net/%s/device", ifname);
    n = readlink(path, link, sizeof(link) - 1);
    link[n > 0 ? n : 0] = 0;
    snprintf(devname, sizeof(devname), "%.31s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
    irq_name(devname);
    return 0;
}

static int set_addr(int fd, unsigned long request, const char *text)
{
    struct ifreq r;
    struct sockaddr_in a = {.sin_family = AF_INET};

    memset(&r, 0, sizeof(r));
    snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", ifname);
    inet_pton(AF_INET, text, &a.sin_addr);
    memcpy(&r.ifr_addr, &a, sizeof(a));
    return ioctl(fd, request, &r);
}

/* Address, netmask and up, as `ip addr add; ip link set up` would. */
static const char *configure(void)
{
    struct ifreq r;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const char *why = 0;

    memset(&r, 0, sizeof(r));
    snprintf(r.ifr_name, sizeof(r.ifr_name), "%s", ifname);
    if (fd < 0)
        return "no socket for the interface's ioctls";
    if (set_addr(fd, SIOCSIFADDR, ip) < 0 || set_addr(fd, SIOCSIFNETMASK, NETMASK) < 0)
        why = "cannot set the interface's address";
    else if (ioctl(fd, SIOCGIFFLAGS, &r) < 0)
        why = "cannot read the interface's flags";
    else {
        r.ifr_flags |= IFF_UP;
        if (ioctl(fd, SIOCSIFFLAGS, &r) < 0)
            why = "cannot bring the interface up";
    }
    close(fd);
    return why;
}

static uint64_t read_u64(const char *fmt, const char *name)
{
    char path[96];
    unsigned long long v = 0;
    FILE *f;

    snprintf(path, sizeof(path), fmt, name);
    f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* The carrier: netfront has none until its backend connects. */
static const char *wait_carrier(void)
{
    for (int ms = 0; read_u64("/sys/class/net/%s/carrier", ifname) != 1; ms += 10) {
        if (ms >= WAIT_MS)
            return "the interface has no carrier within 10 s of coming up";
        sleep_ms(10);
    }
    return 0;
}

/* Whether /proc/interrupts' action name is the card's: the interface's
 * own or its device's (virtio0-input.0, vif0-q0-rx). */
static int card_irq(const char *action)
{
    size_t i = strlen(ifname), d = strlen(devname);

    return (strncmp(action, ifname, i) == 0 && (action[i] == 0 || action[i] == '-')) ||
           (d && strncmp(action, devname, d) == 0 && (action[d] == 0 || action[d] == '-'));
}

/* The card's interrupts on every CPU, summed over its lines of f, a
 * /proc/interrupts (the header names the CPUs' columns). */
static uint64_t interrupts_in(FILE *f)
{
    char line[1024];
    unsigned cpus = 0;
    uint64_t sum = 0;

    if (fgets(line, sizeof(line), f))
        for (char *t = strtok(line, " \t\n"); t; t = strtok(0, " \t\n"))
            cpus++;
    while (fgets(line, sizeof(line), f)) {
        char *p = strchr(line, ':'), *last;
        uint64_t n = 0;

        line[strcspn(line, "\n")] = 0;
        last = strrchr(line, ' ');
        if (!p || !last || !card_irq(last + 1))
            continue;
        p++;
        for (unsigned c = 0; c < cpus; c++)
            n += strtoull(p, &p, 10);
        sum += n;
    }
    return sum;
}

static uint64_t interrupts(void)
{
    FILE *f = fopen("/proc/interrupts", "r");
    uint64_t n = f ? interrupts_in(f) : 0;

    if (f)
        fclose(f);
    return n;
}

/* Idle and iowait time summed over the CPUs, in ns, and how many CPUs,
 * from f, a /proc/timer_list: its per-CPU idle_sleeptime and
 * iowait_sleeptime (a NO_HZ kernel's own ns figures, which /proc/stat
 * rounds to USER_HZ ticks). A CPU idle at the reading lacks its current
 * sleep, so this is exact for the CPU that reads (the doors give Linux
 * one). */
static void idle_in(FILE *f, struct net_sample *s)
{
    char line[256], *colon;

    s->idle_ns = 0;
    s->cpus = 0;
    while (fgets(line, sizeof(line), f)) {
        colon = strchr(line, ':');
        if (strncmp(line, "cpu: ", 5) == 0)
            s->cpus++;
        else if (colon && (strstr(line, ".idle_sleeptime") || strstr(line, ".iowait_sleeptime")))
            s->idle_ns += strtoull(colon + 1, 0, 10); /* "  .idle_sleeptime : N nsecs" */
    }
}

static void sample(struct net_sample *s)
{
    FILE *f = fopen("/proc/timer_list", "r");

    s->idle_ns = 0;
    s->cpus = 0;
    if (f) {
        idle_in(f, s);
        fclose(f);
    }
    s->rx = read_u64("/sys/class/net/%s/statistics/rx_packets", ifname);
    s->tx = read_u64("/sys/class/net/%s/statistics/tx_packets", ifname);
    s->interrupts = interrupts();
    s->ns = now_ns();
}

static int udp_socket(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* "key=N" at *s, advancing past it: all digits, at most 19 of them. */
static int take_field(const char **s, const char *key, unsigned long long *v)
{
    size_t k = strlen(key);
    unsigned digits = 0;

    if (strncmp(*s, key, k) != 0 || (*s)[k] != '=')
        return 0;
    *s += k + 1;
    for (*v = 0; **s >= '0' && **s <= '9' && digits < 19; (*s)++, digits++)
        *v = *v * 10 + (unsigned long long)(**s - '0');
    return digits > 0 && !(**s >= '0' && **s <= '9');
}

/* The client's end, parsed whole or not at all, as patchbay's service
 * does: one optional newline after the last field and nothing else. */
static int net_parse_end(const char *s, struct net_report *r)
{
    if (strncmp(s, "end ", 4) != 0)
        return 0;
    s += 4;
    if (!take_field(&s, "sent", &r->sent) || *s++ != ' ' ||
        !take_field(&s, "received", &r->received) || *s++ != ' ' ||
        !take_field(&s, "wrong", &r->wrong) || *s++ != ' ' || !take_field(&s, "lost", &r->lost))
        return 0;
    return *s == 0 || (*s == '\n' && s[1] == 0);
}

/* What one run served: the sockets, the counts, the client's end. */
static struct {
    int echo, counters;
    uint64_t echoed, bad_requests;
    int ended;
    struct net_report report;
    struct net_sample start;
} run;

static void echo_one(void)
{
    char buf[DATAGRAM_MAX];
    struct sockaddr_in from;
    socklen_t len = sizeof(from);
    ssize_t n = recvfrom(run.echo, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len);

    if (n >= 0 && sendto(run.echo, buf, (size_t)n, 0, (struct sockaddr *)&from, len) == n)
        run.echoed++;
}

/* A request on the counters port, answered with the counters line
 * (udpclient takes a reply that starts "net:"); anything else is dropped
 * and counted. */
static void counters_one(void)
{
    char req[REQUEST_MAX + 1], reply[160];
    struct sockaddr_in from;
    socklen_t len = sizeof(from);
    struct net_report r;
    ssize_t n =
        recvfrom(run.counters, req, REQUEST_MAX + 1, MSG_DONTWAIT, (struct sockaddr *)&from, &len);
    int k;

    if (n < 0)
        return;
    if (n > REQUEST_MAX) {
        run.bad_requests++;
        return;
    }
    req[n] = 0;
    if (net_parse_end(req, &r)) {
        if (!run.ended)
            run.report = r;
        run.ended = 1;
    } else if (strcmp(req, "stats") != 0 && strcmp(req, "stats\n") != 0) {
        run.bad_requests++;
        return;
    }
    k = snprintf(reply, sizeof(reply),
                 "net: rx %llu frames, tx %llu, echoed %llu, bad requests %llu\n",
                 (unsigned long long)(read_u64("/sys/class/net/%s/statistics/rx_packets", ifname) -
                                      run.start.rx),
                 (unsigned long long)(read_u64("/sys/class/net/%s/statistics/tx_packets", ifname) -
                                      run.start.tx),
                 (unsigned long long)run.echoed, (unsigned long long)run.bad_requests);
    sendto(run.counters, reply, (size_t)k, 0, (struct sockaddr *)&from, len);
}

/* Serves until the client's end; 0 at the time-out. */
static int serve(void)
{
    uint64_t deadline = run.start.ns + (uint64_t)timeout_s * 1000000000u;

    while (!run.ended) {
        struct pollfd p[2] = {{.fd = run.echo, .events = POLLIN},
                              {.fd = run.counters, .events = POLLIN}};
        uint64_t now = now_ns();

        if (now >= deadline)
            return 0;
        if (poll(p, 2, (int)((deadline - now) / 1000000) + 1) <= 0)
            continue;
        if (p[0].revents & POLLIN)
            echo_one();
        if (p[1].revents & POLLIN)
            counters_one();
    }
    return 1;
}

/* The contract's line (tools/pbtools/result_lines.py): what the guest did from
 * the interface's coming up to the client's end. Linux cannot tell how
 * often it notified the device; in a domU, nor its grant operations. */
static void print_stats(const struct net_sample *end)
{
    uint64_t wall = (end->ns - run.start.ns) * end->cpus;
    uint64_t idle = end->idle_ns - run.start.idle_ns;

    printf("net-stats: echoed=%llu rx_frames=%llu tx_frames=%llu notifications=- "
           "interrupts=%llu grant_ops=%s busy_ns=%llu cpus=%u\n",
           (unsigned long long)run.echoed, (unsigned long long)(end->rx - run.start.rx),
           (unsigned long long)(end->tx - run.start.tx),
           (unsigned long long)(end->interrupts - run.start.interrupts),
           strcmp(driver, "xen-netfront") == 0 ? "-" : "0",
           (unsigned long long)(wall > idle ? wall - idle : 0), end->cpus);
}

const char *net_run(void)
{
    static char why[96];
    struct in_addr a;
    struct net_sample end;
    const char *fail;

    if (inet_pton(AF_INET, ip, &a) != 1)
        return "net.ip= is not an IPv4 address A.B.C.D";
    if (bad_timeout)
        return "net.timeout= is not a whole number of seconds from 1 to 86400";
    fail = load_driver();
    fail = fail ? fail : find_interface();
    fail = fail ? fail : configure();
    fail = fail ? fail : wait_carrier();
    if (fail)
        return fail;
    run.echo = udp_socket(ECHO_PORT);
    run.counters = udp_socket(COUNTERS_PORT);
    if (run.echo < 0 || run.counters < 0)
        return "cannot bind the UDP echo and counters ports";
    sample(&run.start);
    printf("net: %s up at %s: UDP echo on port %d, counters on port %d, ping; waiting %lu s "
           "for the client's end (Linux's %s)\n",
           ifname, ip, ECHO_PORT, COUNTERS_PORT, timeout_s, driver);
    fflush(stdout);
    if (!serve()) {
        snprintf(why, sizeof(why), "net: no client's end within %lu s", timeout_s);
        return why;
    }
    sample(&end);
    printf("net: client sent %llu, received %llu, wrong %llu, lost %llu\n", run.report.sent,
           run.report.received, run.report.wrong, run.report.lost);
    print_stats(&end);
    if (run.report.wrong > 0) {
        snprintf(why, sizeof(why), "net: the client got %llu datagrams back wrong",
                 run.report.wrong);
        return why;
    }
    return run.report.received ? 0 : "net: the client got no datagram back";
}
