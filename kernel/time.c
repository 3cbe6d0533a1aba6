/* Generic time: the only caller of pv_time_ops. It also keeps the one-shot
 * honest: the callback runs only once its deadline has come, whatever the
 * backend delivers early (a clamped count) or unasked. */
#include "kernel/time.h"

#include <stdbool.h>

#include "kernel/cmdline.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/static_call.h"
#include "pv/ops.h"

/* The timer hook is a static call (kernel/static_call.h): set at run time,
 * called without an indirect branch. */
static void timer_callback_none(void)
{
}
DEFINE_STATIC_CALL(timer_callback, timer_callback_none);
DECLARE_STATIC_CALL(timer_callback, timer_callback_none);
/* Each CPU's one-shot: touched only by that CPU, interrupts disabled. */
static struct oneshot {
    uint64_t deadline;
    uint64_t first_delivery; /* 0 until the platform delivers it, early or not */
    bool armed;
} oneshot[MAX_CPUS];

/* The negative control of the time self-test's rate checks, as
 * pv.repatch_unsafe is of live patching; it applies only where the guest
 * calibrates something (pv/ops.h), and xen/pvh/install.c refuses it with
 * Xen's one-shot timer, which the PVH guest does not calibrate. */
static bool miscalibrate;
OPTION_BOOL_WHERE(
    PV_CAP_CALIBRATES, miscalibrate, "time.miscalibrate",
    "test only: calibrate the guest's own timer (natively, the clock too) against "
    "a reference interval taken as longer than it is, so the time self-test must fail");

unsigned time_miscalibration(void)
{
    return miscalibrate ? TIME_MISCALIBRATION : 1;
}

static bool tsc_counts_instructions;
OPTION_BOOL(tsc_counts_instructions, "tsc.icount",
            "the TSC counts instructions (QEMU -icount): say so in output");

const char *tsc_unit(void)
{
    return tsc_counts_instructions ? "instructions" : "tsc_ticks";
}

bool tsc_counts_every_cpu(void)
{
    return tsc_counts_instructions;
}

/* A platform without time ops would otherwise jump to address 0. */
static void require_time_ops(void)
{
    if (!pv_time_ops.now_ns || !pv_time_ops.timer_oneshot)
        panic("time: the %s backend installed no time ops", pv_info.name);
}

uint64_t time_now_ns(void)
{
    require_time_ops();
    return pv_time_ops.now_ns();
}

uint64_t time_reference_ns(const char **name)
{
    return pv_time_ops.reference_ns(name);
}

void timer_arm(uint64_t deadline_ns)
{
    struct oneshot *o = this_cpu_elem(oneshot);

    require_time_ops();
    o->deadline = deadline_ns;
    o->first_delivery = 0;
    o->armed = true;
    pv_time_ops.timer_oneshot(deadline_ns);
}

void timer_resume(void)
{
    struct oneshot *o = this_cpu_elem(oneshot);

    if (o->armed)
        pv_time_ops.timer_oneshot(o->deadline);
}

uint64_t timer_deadline(void)
{
    struct oneshot *o = this_cpu_elem(oneshot);

    return o->armed ? o->deadline : 0;
}

uint64_t timer_first_delivery_ns(void)
{
    return this_cpu_elem(oneshot)->first_delivery;
}

void timer_set_callback(void (*fn)(void))
{
    static_call_update(timer_callback, fn ? fn : timer_callback_none);
}

void timer_interrupt(void)
{
    unsigned cpu = cpu_index();
    uint64_t now;

    if (!oneshot[cpu].armed)
        return; /* nothing was asked for: a stray or periodic event */
    now = pv_time_ops.now_ns();
    if (!oneshot[cpu].first_delivery)
        oneshot[cpu].first_delivery = now ? now : 1;
    if (now < oneshot[cpu].deadline) {
        pv_time_ops.timer_oneshot(oneshot[cpu].deadline); /* early: ask again for the rest */
        return;
    }
    oneshot[cpu].armed = false; /* before the callback, which may arm again */
    static_call(timer_callback)();
}
