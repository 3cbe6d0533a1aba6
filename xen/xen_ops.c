/* Xen's paravirt ops. Interrupts: vcpu_info's evtchn_upcall_mask stands in
 * for RFLAGS.IF, and an upcall stands in for an interrupt. Time: Xen's
 * system time, read from vcpu_info, and the vCPU's one-shot timer, which
 * raises VIRQ_TIMER. Page tables: xen/xen_mmu.c. xen_ops_install()
 * assigns every op. */
#include "kernel/time.h"
#include "pv/call.h"
#include "pv/ops.h"
#include "xen/events.h"
#include "xen/hypercall.h"
#include "xen/pv_guest.h"
#include "xen/xen_mmu.h"
#include "xen/xen_spinlock.h"
#include "xen/xen_time.h"

#define compiler_barrier() __asm__ volatile("" ::: "memory")

static void set_upcall_mask(uint8_t masked)
{
    __atomic_store_n(&xen_vcpu->evtchn_upcall_mask, masked, __ATOMIC_RELAXED);
}

/* The irq ops run behind callee-save thunks (pv/call.h), as a call site
 * expects of every op. */
PV_THUNKED void xen_irq_disable_fn(void)
{
    set_upcall_mask(1);
    compiler_barrier();
}

/* Xen ABI: an event that arrives while the mask is set leaves
 * evtchn_upcall_pending set and nothing else happens. After unmasking we
 * must look, and if it is set make Xen deliver: any hypercall will, as
 * Xen checks for pending events on every return to the guest. */
/* Tour 10: Enabling is the hard part.
 * Clearing the mask is not enough. An event that arrived while masked only
 * set evtchn_upcall_pending; nothing will deliver it until we look. So
 * `xen_irq_enable_fn` checks the pending byte after unmasking and, if set,
 * makes a hypercall, on whose return Xen delivers the upcall. The boot
 * self-test `irq: pending timer delivered on irq_enable` checks this. */
PV_THUNKED void xen_irq_enable_fn(void)
{
    set_upcall_mask(0);
    compiler_barrier(); /* unmask before the check, or an event could slip between */
    if (__atomic_load_n(&xen_vcpu->evtchn_upcall_pending, __ATOMIC_RELAXED))
        xen_force_upcall();
}

PV_THUNKED unsigned long xen_save_fl_fn(void)
{
    return __atomic_load_n(&xen_vcpu->evtchn_upcall_mask, __ATOMIC_RELAXED) ? 0 : X86_EFLAGS_IF;
}

PV_THUNKED void xen_restore_fl_fn(unsigned long flags)
{
    if (flags & X86_EFLAGS_IF)
        xen_irq_enable_fn();
    else
        xen_irq_disable_fn();
}

/* Xen ABI: SCHEDOP_block clears the event mask itself and does not block
 * if an event is already pending, atomically. So block with the mask set:
 * an event between our last check and the block still wakes us, and its
 * upcall runs as the hypercall returns. */
PV_THUNKED void xen_safe_halt_fn(void)
{
    set_upcall_mask(1);
    compiler_barrier();
    HYPERVISOR_sched_op(SCHEDOP_block, 0);
}

void xen_pv_irq_disable(void);
void xen_pv_irq_enable(void);
unsigned long xen_pv_save_fl(void);
void xen_pv_restore_fl(unsigned long flags);
void xen_pv_safe_halt(void);

PV_THUNK_VOID(xen_pv_irq_disable, xen_irq_disable_fn);
PV_THUNK_VOID(xen_pv_irq_enable, xen_irq_enable_fn);
PV_THUNK_RET(xen_pv_save_fl, xen_save_fl_fn);
PV_THUNK_VOID(xen_pv_restore_fl, xen_restore_fl_fn);
PV_THUNK_VOID(xen_pv_safe_halt, xen_safe_halt_fn);

/* lfence keeps rdtsc from running ahead of the version read. */
static uint64_t rdtsc_ordered(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Xen ABI: Xen bumps version before and after it updates the record, so
 * an odd or changed version means we read a torn snapshot: read again. */
static uint64_t xen_now_ns(void)
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
static void xen_timer_oneshot(uint64_t deadline_ns)
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
static void xen_timer_init(void)
{
    xen_must(HYPERVISOR_vcpu_op(VCPUOP_stop_periodic_timer, 0, 0), "vcpu_op stop_periodic_timer");
    xen_bind_virq(VIRQ_TIMER, timer_event, 0);
}

/* Xen ABI: a PV guest's plain cpuid sees the host CPU; prefixed with
 * XEN_EMULATE_PREFIX, Xen emulates it and applies the domain's policy. */
static struct cpuid_result xen_cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_result r;

    __asm__ volatile(XEN_CPUID
                     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}

/* Xen ABI: a PV guest cannot read CR2; Xen stores the #PF address in
 * vcpu_info before it delivers the fault. */
static uint64_t xen_read_cr2(void)
{
    return xen_vcpu->arch.cr2;
}

void xen_ops_install(void)
{
    pv_info = (struct pv_info){.name = "xen", .caps = PV_CAP_XEN_PV};
    /* CPU: cpuid through Xen's emulation, so we see the domain's policy. */
    pv_cpu_ops = (struct pv_cpu_ops){
        .cpuid = xen_cpuid,
        .read_cr2 = xen_read_cr2,
    };
    /* Interrupt flag: the vCPU's event mask. */
    pv_irq_ops = (struct pv_irq_ops){
        .irq_disable = xen_pv_irq_disable,
        .irq_enable = xen_pv_irq_enable,
        .save_fl = xen_pv_save_fl,
        .restore_fl = xen_pv_restore_fl,
        .safe_halt = xen_pv_safe_halt,
    };
    /* Page tables: mmu_update and mmuext_op, one at a time or batched in
     * multicalls, or plain stores Xen traps (xen.mmu=, xen/xen_mmu.c). */
    xen_mmu_init();
    pv_mmu_ops = xen_mmu_ops;
    /* Time: Xen system time and the one-shot vCPU timer. */
    pv_time_ops = (struct pv_time_ops){
        .now_ns = xen_now_ns,
        .timer_oneshot = xen_timer_oneshot,
    };
    xen_timer_init();
    /* Locks: a contended waiter blocks in SCHEDOP_poll instead of spinning. */
    xen_spinlock_init();
    pv_lock_ops = xen_lock_ops;
}
