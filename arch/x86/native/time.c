/* Native time: the TSC is the clock, the local APIC timer the one-shot.
 * Both run at rates the CPU does not state reliably, so both are measured
 * at once against the PIT, the one timer whose rate the PC fixes. The TSC
 * never goes backwards on one CPU, and the scaling is monotonic, so
 * neither does the clock. The ACPI PM timer, of a rate fixed as well, is
 * the reference the time self-test checks the result against. */
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/pic.h"
#include "arch/x86/pit.h"
#include "arch/x86/native/backend.h"
#include "kernel/acpi_parse.h"
#include "kernel/boot_info.h"
#include "kernel/clock_scale.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/printf.h"
#include "kernel/time.h"

#define CALIBRATION_PIT_TICKS 11932 /* 10 ms at PIT_HZ */
#define CALIBRATION_PASSES 3        /* undisturbed ones wanted */
#define CALIBRATION_ATTEMPTS 12     /* passes made at most to find them */
#define PASS_DISTURBED 50           /* a start or end over 1/50 of the pass: the CPU was away */
#define PIT_POLL_LIMIT 100000000    /* reads of a PIT that never runs out */

static uint64_t tsc_at_zero;
static struct clock_scale tsc_to_ns;

struct native_rates {
    uint64_t tsc_hz;
    uint64_t apic_hz;
};

/* pit_ticks is how long the countdown is taken to have been:
 * CALIBRATION_PIT_TICKS, unless time.miscalibrate says otherwise. */
static uint64_t per_second(uint64_t counted, uint64_t pit_ticks)
{
    return counted * PIT_HZ / pit_ticks;
}

/* Counts TSC and APIC timer ticks over one PIT countdown, read right
 * after it starts and right after it ends, as if it had been pit_ticks
 * long. False for a disturbed pass: its start (the writes that start the
 * count) or its end (the poll that saw it run out) took over
 * 1/PASS_DISTURBED of it, so the CPU was away just then (an SMI; under
 * emulation, a host that ran something else) and the count's true start
 * or end is not known: both counts are off by the time it was away. */
static bool measure_against_pit(uint64_t pit_ticks, struct native_rates *out)
{
    uint64_t before, tsc0, poll, tsc1;
    uint32_t apic0, apic1;

    lapic_timer_free_run();
    before = rdtsc();
    pit_ch2_start(CALIBRATION_PIT_TICKS);
    tsc0 = rdtsc();
    apic0 = lapic_timer_count();
    poll = tsc0;
    for (uint64_t polls = 0; !pit_ch2_expired(); polls++) {
        if (polls == PIT_POLL_LIMIT)
            panic("time: PIT channel 2 never ran out; no PIT to calibrate against");
        poll = rdtsc();
    }
    tsc1 = rdtsc();
    apic1 = lapic_timer_count();
    lapic_timer_stop();
    if (apic1 == 0)
        panic("time: the APIC timer ran out within 10 ms");
    *out = (struct native_rates){per_second(tsc1 - tsc0, pit_ticks),
                                 per_second(apic0 - apic1, pit_ticks)};
    return ((tsc0 - before) + (tsc1 - poll)) * PASS_DISTURBED <= tsc1 - tsc0;
}

static void keep_slowest(struct native_rates *best, struct native_rates r)
{
    best->tsc_hz = r.tsc_hz < best->tsc_hz ? r.tsc_hz : best->tsc_hz;
    best->apic_hz = r.apic_hz < best->apic_hz ? r.apic_hz : best->apic_hz;
}

/* The slowest rates of CALIBRATION_PASSES undisturbed passes, or of every
 * pass when CALIBRATION_ATTEMPTS find none; *disturbed counts those left
 * out. What disturbs a pass in its middle does not matter; a cold first
 * pass, whose exit from the loop waits for that code to be translated
 * under QEMU TCG (+0.4%), is why the slowest is kept. */
static struct native_rates calibrate(uint64_t pit_ticks, unsigned *disturbed)
{
    struct native_rates good = {UINT64_MAX, UINT64_MAX}, any = good, r;
    unsigned n_good = 0;

    *disturbed = 0;
    for (int pass = 0; pass < CALIBRATION_ATTEMPTS && n_good < CALIBRATION_PASSES; pass++) {
        bool ok = measure_against_pit(pit_ticks, &r);

        keep_slowest(&any, r);
        if (ok) {
            keep_slowest(&good, r);
            n_good++;
        } else {
            (*disturbed)++;
        }
    }
    return n_good ? good : any;
}

/* hz as MHz with one decimal, rounded: two arguments for "%lu.%lu". */
#define MHZ_1DP(hz) ((hz) + 50000) / 1000000, ((hz) + 50000) / 100000 % 10

/* Rescales the clock and the one-shot to rates measured over a PIT count
 * taken as pit_ticks long; how ends the line that says so. */
static void calibrate_and_scale(uint64_t pit_ticks, const char *how)
{
    unsigned disturbed;
    struct native_rates r = calibrate(pit_ticks, &disturbed);

    if (r.tsc_hz == 0 || r.apic_hz == 0)
        panic("time: the %s did not advance in 10 ms of the PIT", r.tsc_hz ? "APIC timer" : "TSC");
    if (!clock_scale_init(&tsc_to_ns, r.tsc_hz, NSEC_PER_SEC))
        panic("time: cannot scale a %lu Hz TSC to ns", r.tsc_hz);
    lapic_timer_set_hz(r.apic_hz);
    kprintf("time: TSC %lu.%lu MHz, APIC timer %lu.%lu MHz bus, calibrated against the PIT%s",
            MHZ_1DP(r.tsc_hz), MHZ_1DP(r.apic_hz), how);
    if (disturbed)
        kprintf(" (%u disturbed pass%s left out)", disturbed, disturbed == 1 ? "" : "es");
    kprintf("\n");
}

void native_time_init(void)
{
    pic_disable();
    lapic_init();
    calibrate_and_scale(CALIBRATION_PIT_TICKS, "");
    tsc_at_zero = rdtsc();
    lapic_timer_hook();
}

/* Rates a backend knows better (KVM: the TSC's as kvm-clock states it,
 * the APIC timer's measured against kvm-clock), set before anything has
 * read the clock: it starts again from 0. how ends the line. */
void native_time_set_rates(uint64_t tsc_hz, uint64_t apic_hz, const char *how)
{
    if (!clock_scale_init(&tsc_to_ns, tsc_hz, NSEC_PER_SEC))
        panic("time: cannot scale a %lu Hz TSC to ns", tsc_hz);
    lapic_timer_set_hz(apic_hz);
    tsc_at_zero = rdtsc();
    kprintf("time: TSC %lu.%lu MHz, APIC timer %lu.%lu MHz bus, %s\n", MHZ_1DP(tsc_hz),
            MHZ_1DP(apic_hz), how);
}

/* time.miscalibrate: a clock too fast by the factor, whose ticks still
 * come on time by its own count, so that only a second clock can tell.
 * Before any deadline is armed; the clock jumps forward, never back, as
 * the new rates are lower. */
void native_time_setup(void)
{
    unsigned factor = time_miscalibration();
    char how[64];

    if (factor == 1)
        return;
    ksnprintf(how, sizeof(how), " as if its 10 ms were %u (time.miscalibrate=on)", 10 * factor);
    calibrate_and_scale(CALIBRATION_PIT_TICKS * factor, how);
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

/* The reference: the ACPI PM timer's count, widened to 64 bits by adding
 * each read's distance from the last modulo its width, which holds as
 * long as no two reads are a whole wrap apart (4.7 s at 24 bits). It
 * starts one wrap up, so that it is never 0. */
uint64_t native_reference_ns(const char **name)
{
    static char label[64];
    static struct clock_scale to_ns;
    static uint32_t last;
    static uint64_t count;
    uint32_t mask, now;

    if (!boot_info.pm_timer_port) {
        ksnprintf(label, sizeof(label), "no ACPI PM timer: %s",
                  boot_info.pm_timer_error ? boot_info.pm_timer_error : "no ACPI tables read");
        *name = label;
        return 0;
    }
    mask = boot_info.pm_timer_bits == 32 ? UINT32_MAX : (1u << 24) - 1;
    now = inl(boot_info.pm_timer_port) & mask;
    if (count == 0) {
        ksnprintf(label, sizeof(label), "the ACPI PM timer (port 0x%x, %u bits)",
                  boot_info.pm_timer_port, boot_info.pm_timer_bits);
        clock_scale_init(&to_ns, ACPI_PM_TIMER_HZ, NSEC_PER_SEC);
        count = (uint64_t)mask + 1;
    } else {
        count += (now - last) & mask;
    }
    last = now;
    *name = label;
    return clock_scale_apply(&to_ns, count);
}
