/* The emulated LAPIC timer under PVH (xen.timer=lapic), the other way
 * beside Xen's one-shot timer: calibrated against Xen's clock, the one
 * clock a PVH guest has (there is no PIT), and armed for deadlines in it. */
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/time.h"
#include "xen/pvh/backend.h"

void xen_pvh_lapic_timer_init(void)
{
    uint64_t hz = lapic_timer_measure_hz(xen_now_ns);

    if (hz == 0)
        panic("time: the APIC timer did not advance in 10 ms of Xen's clock");
    lapic_timer_set_hz(hz);
    lapic_timer_hook();
    kprintf("time: APIC timer %lu.%lu MHz, calibrated against Xen's clock", (hz + 50000) / 1000000,
            (hz + 50000) / 100000 % 10);
    if (time_miscalibration() > 1)
        kprintf(" as if its 10 ms were %u (time.miscalibrate=on)", 10 * time_miscalibration());
    kprintf("\n");
}

void xen_pvh_lapic_timer_oneshot(uint64_t deadline_ns)
{
    uint64_t now = xen_now_ns();

    lapic_timer_oneshot_ns(deadline_ns > now ? deadline_ns - now : 0);
}
