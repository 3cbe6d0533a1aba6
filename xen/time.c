/* Xen's time ops: Xen's system time, read from vcpu_info, and the vCPU's
 * one-shot timer, which raises VIRQ_TIMER. */
#include "kernel/time.h"
#include "xen/backend.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/system_time.h"

#define compiler_barrier() __asm__ volatile("" ::: "memory")

/* lfence keeps rdtsc from running ahead of the version read. */
static uint64_t rdtsc_ordered(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Xen ABI: Xen bumps version before and after it updates the record, so
 * an odd or changed version means we read a torn snapshot: read again. */
uint64_t xen_now_ns(void)
{
    const volatile struct vcpu_time_info *src = &xen_vcpu->time;
    struct vcpu_time_info snap;
    uint32_t version;
    uint64_t tsc;

    do {
        version = src->version;
        compiler_barrier();
        snap.tsc_timestamp = src->tsc_timestamp;
        snap.system_time = src->system_time;
        snap.tsc_to_system_mul = src->tsc_to_system_mul;
        snap.tsc_shift = src->tsc_shift;
        tsc = rdtsc_ordered();
        compiler_barrier();
    } while ((version & 1) || version != src->version);
    return xen_system_time_ns(&snap, tsc);
}

/* Flags 0: a deadline already past fires at once rather than failing. */
void xen_timer_oneshot(uint64_t deadline_ns)
{
    struct vcpu_set_singleshot_timer t = {.timeout_abs_ns = deadline_ns, .flags = 0};

    xen_must(HYPERVISOR_vcpu_op(VCPUOP_set_singleshot_timer, 0, &t),
             "vcpu_op set_singleshot_timer");
}

static void timer_event(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data;
    timer_interrupt();
}

/* Xen starts every vCPU with a periodic timer; the kernel asks for each
 * tick itself, so stop it and take VIRQ_TIMER for the one-shot timer. */
void xen_timer_init(void)
{
    xen_must(HYPERVISOR_vcpu_op(VCPUOP_stop_periodic_timer, 0, 0), "vcpu_op stop_periodic_timer");
    xen_bind_virq(VIRQ_TIMER, timer_event, 0);
}
