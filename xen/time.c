/* Xen's time ops: Xen's system time, read from vcpu_info, and each vCPU's
 * one-shot timer, which raises that vCPU's VIRQ_TIMER; the raw TSC at the
 * rate Xen states is the reference the time self-test checks it against. */
#include "arch/x86/cpu.h"
#include "kernel/clock_scale.h"
#include "kernel/compiler.h"
#include "kernel/printf.h"
#include "kernel/time.h"
#include "pv/cpu.h"
#include "pv/irq.h"
#include "xen/backend.h"
#include "xen/cpuid_base.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/system_time.h"
#include "arch/x86/pvclock_kernel.h"

/* Xen ABI (public/arch-x86/cpuid.h): leaf base + 3 describes the TSC;
 * sub-leaf 0 has the guest's rate in ECX (kHz) and in EAX bit 0 whether
 * rdtsc is emulated, sub-leaf 2 the host's rate in EAX (kHz). */
#define CPUID_TSC_LEAF 3
#define CPUID_TSC_EMULATED (1u << 0)
#define CPUID_TSC_HOST 2

/* Set several once a second vCPU has a timer: from then on a thread may
 * read one vCPU's clock, then another's. */
static struct pvclock_latest latest;
/* Added to Xen's system time for the kernel's clock (modulo 2^64: below
 * zero after a move to a host whose system time is ahead); set afresh at
 * each resume from where the clock stopped. */
static int64_t resume_offset_ns;
static struct xen_clock_stop stopped;

/* This vCPU's time record: in its vcpu_info, where Xen keeps it. */
static const volatile struct vcpu_time_info *clock_record(unsigned cpu)
{
    return &((struct vcpu_info *)percpu_areas[cpu].platform)->time;
}

static const struct pvclock_hooks clock_hooks = PVCLOCK_KERNEL_HOOKS(clock_record);

/* This vCPU's clock (arch/x86/pvclock.h): its record with its own TSC. */
static uint64_t local_clock(uint8_t *flags)
{
    return pvclock_cpu_ns(&clock_hooks, flags);
}

/* Without the irq ops, which a wait may come before (a panic's console
 * drain during install): a timeout's caller that needs its vCPU to hold
 * still has events masked already, as the pv lock's does. */
uint64_t xen_local_now_ns(void)
{
    uint8_t flags;

    return pvclock_read_ns(clock_record(cpu_index()), rdtsc_ordered, &flags);
}

static uint64_t never_back(uint64_t ns, uint8_t flags)
{
    return pvclock_never_back(&latest, ns, flags);
}

uint64_t xen_now_ns(void)
{
    uint8_t flags;
    uint64_t ns = local_clock(&flags) + (uint64_t)resume_offset_ns;

    return never_back(ns, flags);
}

/* Xen ABI: shared_info's wc is the wall clock at system time 0, in
 * seconds (wc_sec_hi above wc_sec) and ns since the epoch, guarded by
 * wc_version as a time record is by its version. */
static uint64_t wall_ns(uint64_t system_ns)
{
    const volatile struct shared_info *si = &xen_shared_info;
    uint32_t version;
    uint64_t base;

    do {
        version = si->wc_version;
        compiler_barrier();
        base = (((uint64_t)si->xen_wc_sec_hi << 32) | si->wc_sec) * NSEC_PER_SEC + si->wc_nsec;
        compiler_barrier();
    } while ((version & 1) || version != si->wc_version);
    return base + system_ns;
}

void xen_time_suspend(void)
{
    uint8_t flags;
    uint64_t system = local_clock(&flags);

    stopped.clock_ns = never_back(system + (uint64_t)resume_offset_ns, flags);
    stopped.wall_ns = wall_ns(system);
}

/* Xen's system time is the host's: after a restore on the same host it
 * has moved on by the pause, on another host it may be anywhere, behind
 * or ahead. The wall clock is what hosts share (when theirs agree). */
void xen_time_resume(void)
{
    uint8_t flags;
    uint64_t system = local_clock(&flags);

    resume_offset_ns = xen_resume_offset(&stopped, system, wall_ns(system));
}

/* Flags 0: a deadline already past fires at once rather than failing.
 * The deadline is the kernel's clock, Xen's plus the resume offset.
 * Xen ABI: VCPUOP_set_singleshot_timer acts on the calling vCPU only
 * (-EINVAL for another), so this runs with events masked, on the vCPU
 * whose timer it arms; and its deadline is that vCPU's own system time:
 * the same distance ahead of it as deadline_ns is of the kernel's clock. */
void xen_timer_oneshot(uint64_t deadline_ns)
{
    uint8_t flags;
    uint64_t system = local_clock(&flags);
    uint64_t now = never_back(system + (uint64_t)resume_offset_ns, flags);
    struct vcpu_set_singleshot_timer t = {
        .timeout_abs_ns = deadline_ns > now ? system + (deadline_ns - now) : 0, .flags = 0};

    xen_must(HYPERVISOR_vcpu_op(VCPUOP_set_singleshot_timer, cpu_index(), &t),
             "vcpu_op set_singleshot_timer");
}

static void timer_event(evtchn_port_t port, struct trap_frame *f, void *data)
{
    (void)port, (void)f, (void)data;
    timer_interrupt();
}

/* Xen starts every vCPU with a periodic timer; the kernel asks for each
 * tick itself, so stop it (Xen ABI: allowed for any vCPU of ours, up or
 * not) and bind cpu's VIRQ_TIMER, a per-vCPU VIRQ, for its one-shot. */
evtchn_port_t xen_timer_init(unsigned cpu)
{
    xen_must(HYPERVISOR_vcpu_op(VCPUOP_stop_periodic_timer, cpu, 0), "vcpu_op stop_periodic_timer");
    if (cpu != 0)
        __atomic_store_n(&latest.several, true, __ATOMIC_RELAXED);
    return xen_bind_virq(VIRQ_TIMER, cpu, timer_event, 0);
}

/* Why there is no reference, or the TSC's scale and the reference's name.
 * Xen states no guest rate for a PV dom0 (tsc_set_info() returns before
 * setting it), whose rdtsc is the host's own: then the host's rate. */
static const char *tsc_reference(struct clock_scale *tsc_to_ns)
{
    static char label[80];
    uint32_t base = xen_cpuid_base(pv_cpu_ops.cpuid), khz;
    struct cpuid_result tsc;
    bool host = false;

    if (!base)
        return "no Xen CPUID leaves";
    if (cpu_id(base, 0).eax < base + CPUID_TSC_LEAF)
        return "Xen's CPUID leaves end before its TSC leaf";
    tsc = cpu_id(base + CPUID_TSC_LEAF, 0);
    khz = tsc.ecx;
    if (!khz && !(tsc.eax & CPUID_TSC_EMULATED)) {
        khz = cpu_id(base + CPUID_TSC_LEAF, CPUID_TSC_HOST).eax;
        host = true;
    }
    if (!clock_scale_init(tsc_to_ns, (uint64_t)khz * 1000, NSEC_PER_SEC))
        return "Xen states no TSC rate";
    ksnprintf(label, sizeof(label), "the TSC at the %u.%03u MHz Xen states%s%s", khz / 1000,
              khz % 1000, host ? " for the host" : "",
              tsc.eax & CPUID_TSC_EMULATED ? " (rdtsc emulated by Xen)" : "");
    return label;
}

/* The reference: the raw TSC at the guest TSC rate Xen states in CPUID
 * (base + 3, sub-leaf 0, ECX, in kHz). It is independent of the guest's
 * side of xen_now_ns(): which vCPU's record it reads, the version
 * protocol, the mul and shift arithmetic, a wrapped timestamp. It is not
 * independent of Xen: the stated rate is Xen's own measurement of the
 * TSC, as the records' scale is, so a Xen that mismeasures both passes;
 * and where Xen emulates rdtsc (a domU under TCG), a TSC read is Xen's
 * system time in TSC units, so only the guest's arithmetic is checked. */
uint64_t xen_reference_ns(const char **name)
{
    static struct clock_scale tsc_to_ns;
    static const char *label;
    uint64_t ns;

    if (!label)
        label = tsc_reference(&tsc_to_ns);
    *name = label;
    if (!tsc_to_ns.mult)
        return 0;
    ns = clock_scale_apply(&tsc_to_ns, rdtsc_ordered());
    return ns ? ns : 1;
}
