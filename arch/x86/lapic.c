/* The local APIC: enabling it, EOI, IPIs, and its timer in one-shot mode
 * (Intel SDM vol. 3, chapter 11). */
#include "arch/x86/lapic.h"

#include "arch/x86/cpu.h"
#include "arch/x86/trap_frame.h"
#include "kernel/clock_scale.h"
#include "kernel/exit.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "pv/irq.h"

#define MSR_APIC_BASE 0x1b
#define APIC_BASE_X2APIC (1ULL << 10)
#define APIC_BASE_ENABLE (1ULL << 11)
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ULL

#define LAPIC_ID 0x020
#define LAPIC_TPR 0x080
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_ICR_LOW 0x300
#define LAPIC_ICR_HIGH 0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE 0x3e0

#define SVR_SOFTWARE_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_TIMER_ONESHOT (0u << 17)
#define TIMER_DIVIDE_BY_1 0xb       /* divide configuration 1011b */
#define ICR_SEND_PENDING (1u << 12) /* delivery status */
#define ICR_POLL_LIMIT 1000000      /* reads of an ICR that never goes idle */

/* Shared by every CPU: each sees its own APIC at the one address, and
 * every APIC timer counts the bus clock the boot CPU calibrated. */
static volatile uint32_t *lapic_regs;
static struct clock_scale ns_to_ticks;

static uint32_t lapic_read(unsigned reg)
{
    return lapic_regs[reg / 4];
}

static void lapic_write(unsigned reg, uint32_t v)
{
    lapic_regs[reg / 4] = v;
}

uint64_t lapic_phys_base(void)
{
    return rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDR_MASK;
}

/* SDM 11.9: a spurious interrupt is not in service, so it gets no EOI. */
static void ignore_spurious(struct trap_frame *f)
{
    (void)f;
}

/* An IPI ends a halt (what it interrupted finds its own work) and may ask
 * this CPU to serialize. */
static void on_ipi(struct trap_frame *f)
{
    (void)f;
    smp_ipi_arrived();
    lapic_eoi();
}

/* Identity-mapped from the start: the boot tables cover the low 4 GiB, and
 * the kernel map adds the page uncached (arch/x86/native/kernel_map.c). */
void lapic_init(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);

    if (!((cpuid(1, 0).edx >> 9) & 1)) /* CPUID.1:EDX.APIC */
        panic("lapic: this CPU has no local APIC");
    if (base & APIC_BASE_X2APIC)
        panic("lapic: x2APIC mode is on; only xAPIC (MMIO) is supported");
    if (!(base & APIC_BASE_ENABLE))
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);
    lapic_regs = (volatile uint32_t *)(base & APIC_BASE_ADDR_MASK);
    trap_set_handler(LAPIC_SPURIOUS_VECTOR, ignore_spurious);
    trap_set_handler(LAPIC_IPI_VECTOR, on_ipi);
    lapic_write(LAPIC_TPR, 0); /* accept every priority class */
    lapic_write(LAPIC_SVR, SVR_SOFTWARE_ENABLE | LAPIC_SPURIOUS_VECTOR);
    lapic_write(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_1);
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | LAPIC_TIMER_VECTOR);
}

uint8_t lapic_id(void)
{
    return lapic_read(LAPIC_ID) >> 24;
}

static bool icr_wait_idle(void)
{
    for (unsigned polls = 0; lapic_read(LAPIC_ICR_LOW) & ICR_SEND_PENDING; polls++) {
        if (polls == ICR_POLL_LIMIT)
            return false;
        __builtin_ia32_pause();
    }
    return true;
}

/* SDM 11.6.1: writing the low word sends, so the pair must not be split
 * by an interrupt handler sending one of its own; and software waits for
 * the delivery status to go idle before the next. */
bool lapic_send_ipi(uint8_t dest, uint32_t command)
{
    unsigned long flags = irq_save();
    bool sent = icr_wait_idle();

    if (sent) {
        lapic_write(LAPIC_ICR_HIGH, (uint32_t)dest << 24);
        lapic_write(LAPIC_ICR_LOW, command);
        sent = icr_wait_idle();
    }
    irq_restore(flags);
    return sent;
}

void lapic_eoi_write(void)
{
    lapic_write(LAPIC_EOI, 0);
}

void (*lapic_eoi)(void) = lapic_eoi_write;

void lapic_timer_free_run(void)
{
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONESHOT | LAPIC_TIMER_VECTOR);
    lapic_write(LAPIC_TIMER_INITIAL, UINT32_MAX);
}

uint32_t lapic_timer_count(void)
{
    return lapic_read(LAPIC_TIMER_CURRENT);
}

/* SDM 11.5.4: an initial count of 0 stops the timer. */
void lapic_timer_stop(void)
{
    lapic_write(LAPIC_TIMER_INITIAL, 0);
}

/* The vector is an interrupt gate, so this runs with interrupts disabled
 * and a re-arm inside timer_interrupt() fires only after the iret. */
static void on_timer(struct trap_frame *f)
{
    (void)f;
    lapic_eoi();
    timer_interrupt();
}

void lapic_timer_hook(void)
{
    trap_set_handler(LAPIC_TIMER_VECTOR, on_timer);
}

void lapic_timer_set_hz(uint64_t hz)
{
    if (!clock_scale_init(&ns_to_ticks, NSEC_PER_SEC, hz))
        panic("lapic: cannot scale ns to a %lu Hz timer", hz);
}

/* Writing the initial count (re)starts the countdown; at least one tick,
 * since a count of 0 would stop it instead. */
void lapic_timer_oneshot_ns(uint64_t delay_ns)
{
    uint64_t ticks = clock_scale_apply(&ns_to_ticks, delay_ns);

    ticks = ticks >= UINT32_MAX ? UINT32_MAX : ticks + 1;
    lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_ONESHOT | LAPIC_TIMER_VECTOR);
    lapic_write(LAPIC_TIMER_INITIAL, (uint32_t)ticks);
}

/* The count at a moment of now_ns() between two reads of it; false when
 * the two are over 1/50 of the stretch apart: the CPU was away between
 * them (a vCPU preempted), and the moment is not known. */
static bool count_at(uint64_t (*now_ns)(void), uint64_t stretch, uint32_t *count, uint64_t *at)
{
    uint64_t before = now_ns();

    *count = lapic_timer_count();
    *at = now_ns();
    return (*at - before) * 50 <= stretch;
}

uint64_t lapic_timer_measure_hz(uint64_t (*now_ns)(void))
{
    const uint64_t stretch = 10 * NSEC_PER_MSEC;
    unsigned factor = time_miscalibration(), good = 0;
    uint64_t best = UINT64_MAX, best_any = UINT64_MAX;

    for (int pass = 0; pass < 12 && good < 3; pass++) {
        uint64_t t0, t1;
        uint32_t c0, c1;
        bool ok;

        lapic_timer_free_run();
        ok = count_at(now_ns, stretch, &c0, &t0);
        while (now_ns() - t0 < stretch)
            ;
        ok &= count_at(now_ns, stretch, &c1, &t1);
        lapic_timer_stop();
        if (c1 == 0)
            panic("time: the APIC timer ran out within 10 ms");
        uint64_t hz = (uint64_t)(c0 - c1) * NSEC_PER_SEC / ((t1 - t0) * factor);
        best_any = hz < best_any ? hz : best_any;
        if (ok) {
            best = hz < best ? hz : best;
            good++;
        }
    }
    return good ? best : best_any;
}
