/* Native time: the TSC is the clock, the local APIC timer the one-shot.
 * Both run at rates the CPU does not state reliably, so both are measured
 * at once against the PIT, the one timer whose rate the PC fixes. The TSC
 * never goes backwards on one CPU, and the scaling is monotonic, so
 * neither does the clock. */
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/pic.h"
#include "arch/x86/pit.h"
#include "arch/x86/native/backend.h"
#include "kernel/clock_scale.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/time.h"

#define CALIBRATION_PIT_TICKS 11932 /* 10 ms at PIT_HZ */
#define CALIBRATION_PASSES 3
#define PIT_POLL_LIMIT 100000000 /* reads of a PIT that never runs out */

static uint64_t tsc_at_zero;
static struct clock_scale tsc_to_ns;

struct native_rates {
    uint64_t tsc_hz;
    uint64_t apic_hz;
};

static uint64_t per_second(uint64_t counted)
{
    return counted * PIT_HZ / CALIBRATION_PIT_TICKS;
}

/* Counts TSC and APIC timer ticks over one PIT countdown, read right
 * after it starts and right after it ends. */
static struct native_rates measure_against_pit(void)
{
    uint64_t tsc0, tsc1;
    uint32_t apic0, apic1;

    lapic_timer_free_run();
    pit_ch2_start(CALIBRATION_PIT_TICKS);
    tsc0 = rdtsc();
    apic0 = lapic_timer_count();
    for (uint64_t polls = 0; !pit_ch2_expired(); polls++) {
        if (polls == PIT_POLL_LIMIT)
            panic("time: PIT channel 2 never ran out; no PIT to calibrate against");
    }
    tsc1 = rdtsc();
    apic1 = lapic_timer_count();
    lapic_timer_stop();
    if (apic1 == 0)
        panic("time: the APIC timer ran out within 10 ms");
    return (struct native_rates){per_second(tsc1 - tsc0), per_second(apic0 - apic1)};
}

/* The slowest rates of a few passes. What disturbs a pass lands mostly in
 * its polling, so it delays the end and inflates both counts: an SMI, or
 * under emulation a cold first pass, whose exit from the loop waits for
 * that code to be translated (+0.4% under QEMU TCG). */
static struct native_rates calibrate(void)
{
    struct native_rates best = measure_against_pit();

    for (int pass = 1; pass < CALIBRATION_PASSES; pass++) {
        struct native_rates r = measure_against_pit();
        best.tsc_hz = r.tsc_hz < best.tsc_hz ? r.tsc_hz : best.tsc_hz;
        best.apic_hz = r.apic_hz < best.apic_hz ? r.apic_hz : best.apic_hz;
    }
    return best;
}

/* hz as MHz with one decimal, rounded: two arguments for "%lu.%lu". */
#define MHZ_1DP(hz) ((hz) + 50000) / 1000000, ((hz) + 50000) / 100000 % 10

void native_time_init(void)
{
    struct native_rates r;

    pic_disable();
    lapic_init();
    r = calibrate();
    if (r.tsc_hz == 0 || r.apic_hz == 0)
        panic("time: the %s did not advance in 10 ms of the PIT", r.tsc_hz ? "APIC timer" : "TSC");
    if (!clock_scale_init(&tsc_to_ns, r.tsc_hz, NSEC_PER_SEC))
        panic("time: cannot scale a %lu Hz TSC to ns", r.tsc_hz);
    tsc_at_zero = rdtsc();
    lapic_timer_set_hz(r.apic_hz);
    lapic_timer_hook();
    kprintf("time: TSC %lu.%lu MHz, APIC timer %lu.%lu MHz bus, calibrated against the PIT\n",
            MHZ_1DP(r.tsc_hz), MHZ_1DP(r.apic_hz));
}

/* Nanoseconds since calibration: a multiply and a shift of the TSC. */
uint64_t native_now_ns(void)
{
    return clock_scale_apply(&tsc_to_ns, rdtsc() - tsc_at_zero);
}

void native_timer_oneshot(uint64_t deadline_ns)
{
    uint64_t now = native_now_ns();

    lapic_timer_oneshot_ns(deadline_ns > now ? deadline_ns - now : 0);
}
