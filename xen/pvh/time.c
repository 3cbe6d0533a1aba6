/* The emulated LAPIC timer under PVH (xen.timer=lapic), the other way
 * beside Xen's one-shot timer: calibrated against Xen's clock, the one
 * clock a PVH guest has (there is no PIT), and armed for deadlines in it. */
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/time.h"
#include "xen/pvh/backend.h"

#define CALIBRATION_NS (10 * NSEC_PER_MSEC)

/* The timer's count over a stretch of Xen's clock, both read at once
 * before and after; the slowest of three passes, as natively. Under
 * time.miscalibrate the stretch is taken as that many times longer: a
 * timer too slow by the factor, which fires early by Xen's clock. */
static uint64_t measure_hz(void)
{
    unsigned factor = time_miscalibration();
    uint64_t best = UINT64_MAX;

    for (int pass = 0; pass < 3; pass++) {
        uint64_t t0, t1;
        uint32_t c0, c1;

        lapic_timer_free_run();
        t0 = xen_now_ns();
        c0 = lapic_timer_count();
        while (xen_now_ns() - t0 < CALIBRATION_NS)
            ;
        t1 = xen_now_ns();
        c1 = lapic_timer_count();
        lapic_timer_stop();
        if (c1 == 0)
            panic("time: the APIC timer ran out within 10 ms");
        uint64_t hz = (uint64_t)(c0 - c1) * NSEC_PER_SEC / ((t1 - t0) * factor);
        best = hz < best ? hz : best;
    }
    return best;
}

void xen_pvh_lapic_timer_init(void)
{
    uint64_t hz = measure_hz();

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
