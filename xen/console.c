/* The Xen console. Dom0 writes with HYPERVISOR_console_io, which Xen
 * prints on its own serial console; any other domain gets a console ring
 * page and an event channel in start_info (xen/console_ring.c). */
#include "xen/console_ring.h"
#include "xen/hypercall.h"
#include "xen/pv_guest.h"

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
