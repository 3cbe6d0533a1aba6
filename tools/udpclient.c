/* udpclient: the peer of the guest's UDP echo service, run on the host
 * natively and in dom0 under Xen. It sends --count datagrams, each with a
 * sequence number, a tag of this run and a pattern derived from both,
 * checks every byte of every echo, and tells the guest's counters port
 * what it counted:
 *
 *   udpclient HOST PORT --count N [--size S] [--interval-ms M] [--window W]
 *             [--end-port P] [--timeout-ms T]
 *
 * prints "udpclient: sent N, received N, wrong N, lost N, rtt
 * min/median/max A/B/C us, elapsed_ms E" (received: echoes that came back right;
 * wrong: echoes that did not; lost: datagrams without an echo within
 * --timeout-ms, 1000 by default; E: from the first sending to the last
 * datagram settled, so received*1000/E is the echoes per second) and exits 0 when nothing came back wrong and
 * something came back; 1 otherwise; 2 on bad arguments. Before that line,
 * each run of datagrams lost in a row (the guest unreachable for a while,
 * as while it moves) gets one: "udpclient: outage: N lost in a row
 * (datagrams A-B, the first sent at uptime S s), unanswered for T ms" (from
 * the first one's sending to the sending of the next answered), or "...,
 * to the end". S is on the machine's boot clock, /proc/uptime's, so that
 * its other events (a migration's) can be set beside it. SIGINT or
 * SIGTERM ends the sending early: what is in flight is waited for, and the
 * run ends as after the last. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HEADER 8      /* sequence number and run tag, big-endian */
#define MAX_SIZE 1472 /* a UDP payload in one 1500-byte IP packet */
#define END_TRIES 5
#define END_WAIT_MS 400

struct options {
    struct sockaddr_in echo, counters;
    unsigned long count, size, interval_ms, window, timeout_ms;
};

/* One datagram sent and not yet answered or given up on. */
struct pending {
    uint32_t seq;
    uint64_t sent_us;
    bool live;
};

/* What became of each datagram, by sequence number. */
enum fate { FATE_LOST, FATE_RIGHT, FATE_WRONG };

struct counts {
    unsigned long sent, received, wrong, lost;
    uint64_t elapsed_us; /* first sending to the last datagram settled */
    uint64_t *rtt;
    uint64_t *sent_us; /* per datagram */
    uint8_t *fate;     /* per datagram: enum fate */
};

static volatile sig_atomic_t stop_sending;

static void on_stop(int sig)
{
    (void)sig;
    stop_sending = 1;
}

/* The boot clock: the one /proc/uptime reads. */
static uint64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static __attribute__((noreturn)) void usage(const char *why)
{
    fprintf(stderr,
            "udpclient: %s (usage: udpclient HOST PORT --count N [--size S] "
            "[--interval-ms M] [--window W] [--end-port P] [--timeout-ms T])\n",
            why);
    exit(2);
}

static unsigned long number(const char *s, const char *name, unsigned long lo, unsigned long hi)
{
    char *end, why[120];
    unsigned long v;

    errno = 0;
    v = strtoul(s ? s : "", &end, 10);
    if (!s || !*s || *end || errno || v < lo || v > hi || s[0] == '-') {
        snprintf(why, sizeof(why), "%s wants a number from %lu to %lu", name, lo, hi);
        usage(why);
    }
    return v;
}

static void parse(int argc, char **argv, struct options *o)
{
    unsigned long end_port = 9;

    if (argc < 3)
        usage("HOST and PORT are needed");
    memset(o, 0, sizeof(*o));
    o->echo.sin_family = AF_INET;
    if (inet_pton(AF_INET, argv[1], &o->echo.sin_addr) != 1)
        usage("HOST must be an IPv4 address A.B.C.D");
    o->echo.sin_port = htons((uint16_t)number(argv[2], "PORT", 1, 65535));
    o->size = 64;
    o->window = 8;
    o->timeout_ms = 1000;
    for (int i = 3; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(k, "--count"))
            o->count = number(v, k, 1, 100000000);
        else if (!strcmp(k, "--size"))
            o->size = number(v, k, HEADER, MAX_SIZE);
        else if (!strcmp(k, "--interval-ms"))
            o->interval_ms = number(v, k, 0, 60000);
        else if (!strcmp(k, "--window"))
            o->window = number(v, k, 1, 4096);
        else if (!strcmp(k, "--end-port"))
            end_port = number(v, k, 1, 65535);
        else if (!strcmp(k, "--timeout-ms"))
            o->timeout_ms = number(v, k, 1, 600000);
        else
            usage("unknown option");
    }
    if (!o->count)
        usage("--count is needed");
    o->counters = o->echo;
    o->counters.sin_port = htons((uint16_t)end_port);
}

/* The datagram for seq: its header, then bytes no other sequence number
 * or run shares at the same offset. */
static void fill(uint8_t *p, unsigned long size, uint32_t seq, uint32_t tag)
{
    uint32_t x = seq * 2654435761u ^ tag;

    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(seq >> (24 - 8 * i));
        p[4 + i] = (uint8_t)(tag >> (24 - 8 * i));
    }
    for (unsigned long i = HEADER; i < size; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One echo: right only if it is a datagram this run still waits for,
 * whole and byte for byte. A late echo of one given up on counts neither
 * way: it was already counted lost. */
static void take_echo(const struct options *o, struct pending *win, const uint8_t *buf, ssize_t n,
                      uint32_t tag, struct counts *c)
{
    static uint8_t want[MAX_SIZE];
    uint32_t seq;
    struct pending *p;

    if (n < HEADER || get32(buf + 4) != tag) {
        c->wrong++;
        return;
    }
    seq = get32(buf);
    if (seq >= c->sent) { /* never sent: its header came back changed */
        c->wrong++;
        return;
    }
    p = &win[seq % o->window];
    if (!p->live || p->seq != seq)
        return;
    p->live = false;
    fill(want, o->size, seq, tag);
    if ((unsigned long)n != o->size || memcmp(buf, want, o->size)) {
        c->wrong++;
        c->fate[seq] = FATE_WRONG;
        return;
    }
    c->fate[seq] = FATE_RIGHT;
    c->rtt[c->received++] = now_us() - p->sent_us;
}

/* Gives up on the datagrams in the window older than the time-out. */
static void expire(const struct options *o, struct pending *win, struct counts *c)
{
    uint64_t now = now_us();

    for (unsigned long i = 0; i < o->window; i++) {
        if (win[i].live && now - win[i].sent_us >= o->timeout_ms * 1000) {
            win[i].live = false;
            c->lost++;
        }
    }
}

static unsigned long in_flight(const struct options *o, const struct pending *win)
{
    unsigned long n = 0;

    for (unsigned long i = 0; i < o->window; i++)
        n += win[i].live;
    return n;
}

/* Sends and checks until every datagram is answered or given up on. A
 * slot of the window is reused only once its datagram is settled. */
static void run(int fd, const struct options *o, uint32_t tag, struct counts *c)
{
    struct pending *win = calloc(o->window, sizeof(*win));
    static uint8_t out[MAX_SIZE], in[MAX_SIZE + 1];
    uint64_t start = now_us(), next_send = start;
    uint32_t seq = 0;

    if (!win) {
        fprintf(stderr, "udpclient: out of memory\n");
        exit(1);
    }
    while ((seq < o->count && !stop_sending) || in_flight(o, win)) {
        uint64_t now = now_us();
        int wait_ms = 10;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};

        if (seq < o->count && !stop_sending && now >= next_send && !win[seq % o->window].live) {
            fill(out, o->size, seq, tag);
            if (sendto(fd, out, o->size, 0, (const struct sockaddr *)&o->echo, sizeof(o->echo)) ==
                (ssize_t)o->size) {
                c->sent_us[seq] = now_us();
                win[seq % o->window] = (struct pending){seq, c->sent_us[seq], true};
                c->sent++;
                seq++;
                next_send = now + o->interval_ms * 1000;
            } else if (errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED) {
                perror("udpclient: sendto");
                exit(1);
            }
            wait_ms = 0;
        }
        if (poll(&pfd, 1, wait_ms) > 0) {
            ssize_t n = recv(fd, in, sizeof(in), 0);
            if (n >= 0)
                take_echo(o, win, in, n, tag, c);
        }
        expire(o, win, c);
    }
    c->elapsed_us = now_us() - start;
    free(win);
}

/* One line per run of datagrams lost in a row. */
static void report_outages(const struct counts *c)
{
    for (unsigned long s = 0; s < c->sent;) {
        unsigned long first = s;
        uint64_t from_cs;
        if (c->fate[s++] != FATE_LOST)
            continue;
        while (s < c->sent && c->fate[s] == FATE_LOST)
            s++;
        from_cs = c->sent_us[first] / 10000;
        printf("udpclient: outage: %lu lost in a row (datagrams %lu-%lu, the first sent at "
               "uptime %llu.%02llu s), ",
               s - first, first, s - 1, (unsigned long long)(from_cs / 100),
               (unsigned long long)(from_cs % 100));
        if (s < c->sent)
            printf("unanswered for %llu ms\n",
                   (unsigned long long)((c->sent_us[s] - c->sent_us[first]) / 1000));
        else
            printf("to the end\n");
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Tells the guest the run is over, until it answers with its counters
 * line (shown) or the tries run out: the end datagram may be lost too. */
static void send_end(int fd, const struct options *o, const struct counts *c)
{
    char msg[160], reply[1500];

    snprintf(msg, sizeof(msg), "end sent=%lu received=%lu wrong=%lu lost=%lu\n", c->sent,
             c->received, c->wrong, c->lost);
    for (int i = 0; i < END_TRIES; i++) {
        uint64_t until = now_us() + END_WAIT_MS * 1000;

        sendto(fd, msg, strlen(msg), 0, (const struct sockaddr *)&o->counters, sizeof(o->counters));
        while (now_us() < until) {
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            ssize_t n;

            if (poll(&pfd, 1, (int)((until - now_us()) / 1000) + 1) <= 0)
                continue;
            n = recv(fd, reply, sizeof(reply) - 1, 0);
            if (n > 4 && !memcmp(reply, "net:", 4)) {
                reply[n] = '\0';
                printf("udpclient: the guest's counters: %s%s", reply,
                       reply[n - 1] == '\n' ? "" : "\n");
                return;
            }
        }
    }
    printf("udpclient: the guest did not answer the end\n");
}

static void free_counts(struct counts *c)
{
    free(c->rtt);
    free(c->sent_us);
    free(c->fate);
}

int main(int argc, char **argv)
{
    struct options o;
    struct counts c = {0};
    uint32_t tag = (uint32_t)now_us() ^ (uint32_t)getpid() << 16;
    int fd;

    parse(argc, argv, &o);
    c.rtt = calloc(o.count, sizeof(*c.rtt));
    c.sent_us = calloc(o.count, sizeof(*c.sent_us));
    c.fate = calloc(o.count, sizeof(*c.fate));
    if (!c.rtt || !c.sent_us || !c.fate) {
        fprintf(stderr, "udpclient: out of memory for the records of %lu datagrams\n", o.count);
        free_counts(&c);
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it comes, through a pipe too */
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("udpclient: socket");
        free_counts(&c);
        return 1;
    }
    run(fd, &o, tag, &c);
    report_outages(&c);
    qsort(c.rtt, c.received, sizeof(*c.rtt), cmp_u64);
    printf("udpclient: sent %lu, received %lu, wrong %lu, lost %lu, rtt min/median/max "
           "%llu/%llu/%llu us, elapsed_ms %llu\n",
           c.sent, c.received, c.wrong, c.lost, (unsigned long long)(c.received ? c.rtt[0] : 0),
           (unsigned long long)(c.received ? c.rtt[c.received / 2] : 0),
           (unsigned long long)(c.received ? c.rtt[c.received - 1] : 0),
           (unsigned long long)(c.elapsed_us / 1000));
    fflush(stdout);
    send_end(fd, &o, &c);
    close(fd);
    free_counts(&c);
    return c.wrong == 0 && c.received > 0 ? 0 : 1;
}
