/* What the kernel's files linked into bench-host expect of the rest of
 * the kernel, stood in for in a Linux process. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/exit.h"
#include "kernel/live_patch.h"
#include "kernel/preempt.h"
#include "linux-user/bench-host/bench_host.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"

void die(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fputs("bench-host: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

void panic(const char *fmt, ...)
{
    char line[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    die("panic: %s", line);
}

/* The static call benchmark retargets its trampoline in the program's
 * read-only text (kernel/static_call.c). Written through /proc/self/mem,
 * as a debugger writes a breakpoint: no page is ever writable and
 * executable at once, and one thread needs none of the kernel's syncs. */
void live_patch_write(const struct live_place *places, unsigned n)
{
    int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

    if (fd < 0)
        die("cannot open /proc/self/mem to retarget a static call: %s", strerror(errno));
    for (unsigned i = 0; i < n; i++)
        if (pwrite(fd, places[i].bytes, places[i].len, (off_t)places[i].addr) != places[i].len)
            die("cannot write %u bytes at 0x%lx through /proc/self/mem: %s", places[i].len,
                (unsigned long)places[i].addr, strerror(errno));
    close(fd);
}

/* Data, never executable: a hypercall reached here faults at once. No
 * form reaches one (pending stays 0, no lock is contended). */
char hypercall_page[4096] __attribute__((aligned(4096)));

/* Xen's lock reaches these only when it has to wait, which one thread
 * taking a free lock never does. */
static __attribute__((noreturn)) void unreached(const char *what)
{
    die("%s reached: only a contended lock waits, and here none is", what);
}

evtchn_port_t xen_bind_ipi(unsigned cpu, evtchn_handler_fn fn, void *data)
{
    (void)cpu, (void)fn, (void)data;
    unreached("xen_bind_ipi");
}

void xen_evtchn_clear(evtchn_port_t port)
{
    (void)port;
    unreached("xen_evtchn_clear");
}

uint64_t xen_local_now_ns(void)
{
    unreached("xen_local_now_ns");
}

/* No thread in the per-CPU area (vcpu.c), so a lock's preemption count
 * is never kept and no preemption is ever missed. */
void sched_preempt_missed(void)
{
    unreached("sched_preempt_missed");
}
