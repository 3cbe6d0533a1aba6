/* The machine as a Xen PV guest sees it. The console: dom0 writes with
 * HYPERVISOR_console_io, which Xen prints on its own serial console; any
 * other domain gets a console ring page and an event channel in
 * start_info (xen/console_ring.c). The exit: QEMU's isa-debug-exit port,
 * with SCHEDOP_shutdown behind it. */
#include "arch/x86/cpu.h"
#include "xen/console_ring.h"
#include "xen/hypercall.h"
#include "xen/backend.h"

#define DEBUG_EXIT_PORT 0xf4 /* QEMU -device isa-debug-exit,iobase=0xf4 */

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

void xen_console_write(const char *s, size_t len)
{
    if (console_ring)
        console_ring_write(s, len);
    else
        console_io_write(s, len);
}

/* The domain builder maps a domU's console page in the bootstrap region,
 * at the virtual address of its pseudo-physical frame. */
void xen_console_init(void)
{
    if (xen_is_initial_domain())
        return;
    console_ring = (void *)(mfn_to_pfn(xen_start_info->console.domU.mfn) << 12);
    console_port = xen_start_info->console.domU.evtchn;
}

/* Dom0 may reach I/O ports once it raises its virtual IOPL; Xen then
 * emulates the `out` and QEMU exits at once with (status << 1) | 1.
 * SCHEDOP_shutdown would work too but makes Xen wait 5 s before it resets,
 * so it is only the fallback (and a domU's only way out). */
void xen_exit(int status)
{
    struct sched_shutdown shutdown = {
        .reason = status == 0 ? SHUTDOWN_poweroff : SHUTDOWN_crash,
    };

    if (xen_is_initial_domain()) {
        struct physdev_set_iopl iopl = {.iopl = 1};
        if (HYPERVISOR_physdev_op(PHYSDEVOP_set_iopl, &iopl) == 0)
            outb(DEBUG_EXIT_PORT, (uint8_t)status);
    }
    for (;;)
        HYPERVISOR_sched_op(SCHEDOP_shutdown, &shutdown);
}
