/* net=on: the stack's workload. The stack serves from the network
 * thread; this thread only brings the interface up, waits for the
 * client's end and judges the run by what the client counted. */
#include "kernel/net_workload.h"

#include <stdbool.h>
#include <stdint.h>

#include "drivers/net.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/net/layers.h"
#include "kernel/net/stack.h"
#include "kernel/printf.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"

/* Each look at the end is a wake-up the net-stats: line counts as busy
 * time: rarely enough that a long wait for the client costs its rows
 * little, often enough that the run ends soon after the client does. */
#define POLL_NS (200 * NSEC_PER_MSEC)

static const char *const net_choices[] = {"off", "on", 0};
static int net_choice;
OPTION_ENUM(net_choice, "net", net_choices,
            "serve UDP echo and ping until the client's end (tools/run --net)");
static char net_ip[16] = "10.0.2.15";
OPTION_STRING(net_ip, "net.ip", "the guest's IPv4 address, A.B.C.D");
static char net_gw[16];
OPTION_STRING(net_gw, "net.gw", "a gateway to ask for by ARP at the start, A.B.C.D");
static bool busy_on;
OPTION_BOOL(busy_on, "net.busy",
            "a thread that counts while the stack serves: a flood must leave it, and the tick, "
            "their turns");
static uint64_t net_timeout_s = 60;
OPTION_UINT(net_timeout_s, "net.timeout", 1, 86400, "seconds to wait for the client's end");
/* A negative control for the client's check: replies' IP checksums wrong. */
static const char *const mutant_choices[] = {"none", "ip-checksum", 0};
static int net_mutant;
OPTION_ENUM(net_mutant, "net.mutant", mutant_choices,
            "break the stack on purpose, to show the client's check catches it");

static const char *addresses_parse(void)
{
    uint32_t v;

    if (!net_parse_ip4(net_ip, &v))
        return "net.ip= is not an IPv4 address A.B.C.D";
    if (net_gw[0] && !net_parse_ip4(net_gw, &v))
        return "net.gw= is not an IPv4 address A.B.C.D";
    return NULL;
}
OPTION_CHECK(addresses_parse);

/* Waits for the client's end; NULL once it came, else why it will not:
 * the time-out, or the device gone (its transport said why). */
static const char *wait_for_end(const struct net_device *d)
{
    static char why[120];
    uint64_t deadline = time_now_ns() + net_timeout_s * NSEC_PER_SEC;

    while (!__atomic_load_n(&net_stack.ended, __ATOMIC_ACQUIRE)) {
        const char *gone = __atomic_load_n(&d->gone, __ATOMIC_ACQUIRE);
        if (gone) {
            ksnprintf(why, sizeof(why), "net: %s is gone before the client's end: its %s", d->name,
                      gone);
            return why;
        }
        if (time_now_ns() >= deadline) {
            ksnprintf(why, sizeof(why), "net: no client's end within %lu s", net_timeout_s);
            return why;
        }
        sleep_until(time_now_ns() + POLL_NS);
    }
    return NULL;
}

/* net.busy: the rest of the guest, as far as a flood is concerned. */
static struct {
    struct thread *t;
    bool stop;
    uint64_t rounds, preemptions, switches;
} busy;

static void busy_count(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&busy.stop, __ATOMIC_ACQUIRE))
        __atomic_store_n(&busy.rounds, busy.rounds + 1, __ATOMIC_RELAXED);
}

static void busy_start(void)
{
    if (!busy_on)
        return;
    busy.preemptions = sched_preemptions();
    busy.switches = sched_switches();
    busy.t = thread_create("net busy", busy_count, NULL);
    if (!busy.t)
        kernel_exit(EXIT_FAILURE, "net.busy: no thread slot for the busy thread");
}

/* Whether it and the tick kept their turns while the stack served: the
 * counts, for the run's reader to judge. */
static void busy_stop(void)
{
    if (!busy.t)
        return;
    __atomic_store_n(&busy.stop, true, __ATOMIC_RELEASE);
    thread_join(busy.t);
    busy.t = NULL;
    kprintf("net: while serving, the busy thread counted %lu rounds; the tick preempted %lu "
            "times, %lu context switches\n",
            busy.rounds, sched_preemptions() - busy.preemptions, sched_switches() - busy.switches);
}

static void print_counters(const struct net_device *d)
{
    char line[640];

    net_counters_format(line, sizeof(line));
    kprintf("%s\n", line);
    if (net_stack.c.timed)
        kprintf("net: the stack: %lu %s a frame, %lu of %lu frames timed (from the frame's "
                "arrival in the stack to its reply handed to the transport)\n",
                net_stack.c.ticks / net_stack.c.timed, tsc_unit(), net_stack.c.timed,
                net_stack.c.rx_frames);
    kprintf("net: %s (%s): %lu frames received, %lu sent, %lu dropped with the receive queue "
            "full, %lu refused by the transport; %lu notifications, %lu interrupts\n",
            d->name, d->transport->name, d->stats.rx_frames, d->stats.tx_frames,
            d->stats.rx_dropped, d->stats.tx_dropped, d->stats.notifications, d->stats.interrupts);
}

/* The device's counters, the CPUs' idle time and the clock when the
 * interface came up: the bench row's figures are what changed since. */
struct net_snapshot {
    struct net_stats stats;
    uint64_t idle_ns, at_ns;
};

static void snapshot(const struct net_device *d, struct net_snapshot *s)
{
    s->stats = d->stats;
    s->idle_ns = sched_idle_ns();
    s->at_ns = time_now_ns();
}

/* The one line tools/pbtools/result_lines.py's net_row() reads, and its sums
 * shown. busy_ns is the CPUs' time not halted: wall time on each online
 * CPU less its idle. */
static void print_net_stats(const struct net_device *d, const struct net_snapshot *up)
{
    struct net_snapshot end;
    unsigned cpus = smp_cpus_online();

    snapshot(d, &end);
    uint64_t wall = (end.at_ns - up->at_ns) * cpus, idle = end.idle_ns - up->idle_ns;
    kprintf("net-stats: echoed=%lu rx_frames=%lu tx_frames=%lu notifications=%lu interrupts=%lu "
            "grant_ops=%lu busy_ns=%lu cpus=%u\n",
            net_stack.c.udp_echoes, end.stats.rx_frames - up->stats.rx_frames,
            end.stats.tx_frames - up->stats.tx_frames,
            end.stats.notifications - up->stats.notifications,
            end.stats.interrupts - up->stats.interrupts, end.stats.grant_ops - up->stats.grant_ops,
            wall > idle ? wall - idle : 0, cpus);
    kprintf("net: since up: %lu ns on each of %u CPUs, %lu ns of it idle\n", end.at_ns - up->at_ns,
            cpus, idle);
}

/* What the ARP question at the start found, if anything. */
static void print_gateway(uint32_t gw)
{
    uint8_t m[NET_ETH_ALEN];

    if (arp_lookup(gw, m))
        kprintf("net: gateway %s is at %02x:%02x:%02x:%02x:%02x:%02x\n", net_gw, m[0], m[1], m[2],
                m[3], m[4], m[5]);
    else
        kprintf("net: gateway %s never answered ARP\n", net_gw);
}

void net_workload_run(void)
{
    struct net_device *d;
    uint32_t ip, gw = 0;
    const struct net_client_report *r = &net_stack.report;
    struct net_snapshot up;
    const char *why;

    if (!net_choice)
        return;
    d = net_first();
    if (!d)
        kernel_exit(EXIT_FAILURE, "net=on but no network device: start with --net");
    net_parse_ip4(net_ip, &ip);
    if (net_gw[0])
        net_parse_ip4(net_gw, &gw);
    net_stack.mutant_ip_checksum = net_mutant == 1;
    snapshot(d, &up);
    net_stack_up(d, ip, gw);
    kprintf("net: %s up at %s: UDP echo on port %u, counters on port %u, ping; waiting %lu s "
            "for the client's end%s\n",
            d->name, net_ip, NET_UDP_ECHO_PORT, NET_UDP_COUNTERS_PORT, net_timeout_s,
            net_mutant == 1 ? " (net.mutant=ip-checksum: every reply's IP checksum wrong)" : "");
    arp_announce();
    if (gw)
        arp_request(gw);
    busy_start();
    why = wait_for_end(d);
    busy_stop();
    if (why) {
        print_counters(d);
        kernel_exit(EXIT_FAILURE, why);
    }
    if (gw)
        print_gateway(gw);
    kprintf("net: client sent %lu, received %lu, wrong %lu, lost %lu\n", r->sent, r->received,
            r->wrong, r->lost);
    print_counters(d);
    print_net_stats(d, &up);
    if (r->wrong > 0) {
        char reason[120];
        ksnprintf(reason, sizeof(reason), "net: the client got %lu datagrams back wrong", r->wrong);
        kernel_exit(EXIT_FAILURE, reason);
    }
    if (r->received == 0)
        kernel_exit(EXIT_FAILURE, "net: the client got no datagram back");
}
