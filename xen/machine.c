/* The machine as a Xen guest sees it, PV or PVH alike, which depends on
 * the domain's role, decided once here from what the entry path put in
 * xen_domain. dom0 writes its console with HYPERVISOR_console_io, which
 * Xen prints on its serial console, and ends the run through QEMU's
 * isa-debug-exit port. A domU writes into the console ring its start info
 * names (xen/console_ring.c) and ends by leaving its status in xenstore
 * for the toolstack, then SCHEDOP_shutdown. */
#include "arch/x86/cpu.h"
#include "kernel/console.h"
#include "kernel/printf.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/console_ring.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/xenstore.h"

#define DEBUG_EXIT_PORT 0xf4 /* QEMU -device isa-debug-exit,iobase=0xf4 */
/* CONTRACT with the dom0 side (tools/run --domu), which reads this node,
 * under /local/domain/<domid>/, after the domain stops: the exit status
 * in decimal. The toolstack lets a domU write its data/ directory. */
#define STATUS_NODE "data/patchbay-status"
#define CONSOLE_DRAIN_TIMEOUT_NS 5000000000ull

/* What differs between dom0 and a domU; the rest of the backend is the same. */
struct xen_role {
    const char *variant; /* pv_info.variant: results name the domU runs */
    void (*console_write)(const char *s, size_t len);
    void (*announce)(unsigned domid);
    __attribute__((noreturn)) void (*exit)(int status);
};

static const struct xen_role *role;
static struct xencons_interface *console_ring;
static evtchn_port_t console_port;

static void console_io_write(const char *s, size_t len)
{
    /* A negative count or an error would only lose output: ignore it. */
    while (len > 0) {
        int n = len > 4096 ? 4096 : (int)len;
        HYPERVISOR_console_io(CONSOLEIO_write, n, s);
        s += n;
        len -= (size_t)n;
    }
}

/* The daemon reads the ring when the console's port fires. */
static void console_ring_notify(void)
{
    struct evtchn_send send = {.port = console_port};

    HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
}

/* Waits for the console daemon whenever the ring is full: console output
 * is never dropped. Yielding keeps the wait cheap for the other domains. */
static void console_ring_write(const char *s, size_t len)
{
    while (len > 0) {
        size_t n = xencons_ring_write(console_ring, s, len);
        console_ring_notify();
        if (n == 0)
            HYPERVISOR_sched_op(SCHEDOP_yield, 0);
        s += n;
        len -= n;
    }
}

/* The verdict is the last thing written: it must reach the daemon before
 * the domain goes, so wait (bounded) until the ring is empty. */
static void console_ring_drain(void)
{
    struct xen_wait w;

    xen_wait_start(&w, console_port, CONSOLE_DRAIN_TIMEOUT_NS);
    do {
        console_ring_notify();
    } while (xencons_ring_space(console_ring) < sizeof(console_ring->out) && xen_wait_event(&w));
}

void xen_console_drain(void)
{
    if (console_ring)
        console_ring_drain();
}

static void dom0_announce(unsigned domid)
{
    (void)domid;
    kprintf("xen: running as dom0\n");
}

/* A PV domU's id lives in xenstore only (relative "domid" is our own
 * node); a PVH domU's entry path read it from CPUID. */
static void domu_announce(unsigned domid)
{
    char id[16];
    const char *err = xenstore_init();

    if (domid != XEN_DOMID_UNKNOWN) {
        kprintf("xen: running as domU %u\n", domid);
        return;
    }
    if (!err)
        err = xenstore_read("domid", id, sizeof(id));
    if (err)
        kprintf("xen: running as domU, domain id unknown: xenstore: %s\n", err);
    else
        kprintf("xen: running as domU %s\n", id);
}

/* Xen then emulates the `out` and QEMU exits at once with (status << 1)
 * | 1. A PV dom0 may reach I/O ports only once it raises its virtual
 * IOPL; a PVH dom0's I/O bitmap already lets it. SCHEDOP_shutdown would
 * make Xen wait 5 s before it resets, so it is only the fallback. */
__attribute__((noreturn)) static void dom0_exit(int status)
{
    struct sched_shutdown shutdown = {
        .reason = status == 0 ? SHUTDOWN_poweroff : SHUTDOWN_crash,
    };
    struct physdev_set_iopl iopl = {.iopl = 1};

    if (!xen_domain.ports_need_iopl || HYPERVISOR_physdev_op(PHYSDEVOP_set_iopl, &iopl) == 0)
        outb(DEBUG_EXIT_PORT, (uint8_t)status);
    for (;;)
        HYPERVISOR_sched_op(SCHEDOP_shutdown, &shutdown);
}

/* The byte the isa-debug-exit port would carry, in decimal. */
static void write_status(unsigned status)
{
    char value[4];
    const char *err;

    ksnprintf(value, sizeof(value), "%u", status);
    err = xenstore_write(STATUS_NODE, value);
    if (err)
        kprintf("xen: exit status %s not written to xenstore %s: %s\n", value, STATUS_NODE, err);
}

/* A failure on the way out (a trap while draining) must replace a 0
 * already written, yet exits may nest: so the node is written only when
 * the status changes, never from inside its own write, and a failed
 * write is not retried. */
static void report_status(int status)
{
    static int written = -1;
    static bool writing;

    if (writing || (uint8_t)status == written)
        return;
    writing = true;
    write_status((uint8_t)status);
    written = (uint8_t)status;
    writing = false;
}

/* Events are masked first so no other thread runs while we wait on the
 * daemons. Reason: poweroff for a clean run, crash otherwise, so `xl`
 * shows a failure even to someone who does not read the status node. */
__attribute__((noreturn)) static void domu_exit(int status)
{
    struct sched_shutdown shutdown = {
        .reason = status == 0 ? SHUTDOWN_poweroff : SHUTDOWN_crash,
    };

    irq_disable();
    report_status(status);
    console_ring_drain();
    for (;;)
        HYPERVISOR_sched_op(SCHEDOP_shutdown, &shutdown);
}

static const struct xen_role dom0 = {
    .variant = 0,
    .console_write = console_io_write,
    .announce = dom0_announce,
    .exit = dom0_exit,
};

static const struct xen_role domu = {
    .variant = "domu",
    .console_write = console_ring_write,
    .announce = domu_announce,
    .exit = domu_exit,
};

/* The one place the backends tell dom0 from a domU. Only dom0 may reach
 * QEMU's ports; Xen refuses console_io to a domU unless built with
 * VERBOSE_DEBUG, and gives it a console ring page. */
void xen_console_init(void)
{
    if (xen_domain.dom0) {
        role = &dom0;
        return;
    }
    role = &domu;
    console_ring = xen_domain.console;
    console_port = xen_domain.console_port;
}

const char *xen_role_variant(void)
{
    return role->variant;
}

void xen_announce_role(unsigned domid)
{
    role->announce(domid);
}

void xen_version_string(char *buf, size_t len)
{
    long version = HYPERVISOR_xen_version(XENVER_version, 0);
    xen_extraversion_t extra = {0};

    HYPERVISOR_xen_version(XENVER_extraversion, extra);
    extra[sizeof(extra) - 1] = '\0';
    ksnprintf(buf, len, "Xen %ld.%ld%s", version >> 16, version & 0xffff, extra);
}

void xen_console_write(const char *s, size_t len)
{
    role->console_write(s, len);
}

void xen_exit(int status)
{
    role->exit(status);
}
