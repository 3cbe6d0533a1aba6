/* KVM's pv spinlock: the blocking ticket lock (kernel/pv_ticket_lock.c,
 * Xen's too) whose waiter, after spinning a while, halts its vCPU instead
 * of burning time the holder's vCPU (or the next waiter's) may need, and
 * whose unlocker kicks the vCPU of the next ticket with KVM_HC_KICK_CPU.
 * A kick that comes before the halt makes the halt return at once, so
 * none is lost. */
#include <linux/kvm_para.h>

#include "arch/x86/native/backend.h"
#include "kernel/cmdline.h"
#include "kernel/pv_ticket_lock.h"
#include "kernel/spinlock.h"
#include "kvm/backend.h"
#include "kvm/hypercall.h"
#include "pv/irq.h"

static bool pv_lock = true;
OPTION_BOOL_WHERE(PV_CAP_KVM, pv_lock, "kvm.lock",
                  "KVM: a contended lock's waiter halts and the unlocker kicks it "
                  "(KVM_HC_KICK_CPU), or it spins");

static uint64_t halts, kicks;

/* KVM ABI (KVM_HC_KICK_CPU): flags 0 and an APIC id; that vCPU's hlt
 * returns, or its next one does. */
static void kick(unsigned cpu)
{
    __atomic_fetch_add(&kicks, 1, __ATOMIC_RELAXED);
    kvm_hypercall4(KVM_HC_KICK_CPU, 0, native_cpu_apic_id(cpu), 0, 0);
}

/* Halts with interrupts as the caller had them: on, the tick still ends
 * a halt whose holder is a preempted thread of this same CPU. */
static void halt(unsigned long flags)
{
    __atomic_fetch_add(&halts, 1, __ATOMIC_RELAXED);
    if (flags & X86_EFLAGS_IF) {
        safe_halt();
        irq_disable();
    } else {
        __asm__ volatile("hlt" ::: "memory");
    }
}

static uint64_t kvm_lock_halts(void)
{
    return __atomic_load_n(&halts, __ATOMIC_RELAXED);
}

static uint64_t kvm_lock_kicks(void)
{
    return __atomic_load_n(&kicks, __ATOMIC_RELAXED);
}

static const struct ticket_blocker kvm_ticket_blocker = {.block = halt, .kick = kick};

/* Before any lock is contended: the halting ticket lock, or with
 * kvm.lock=off the native ticket lock, spinning. */
static void kvm_lock_setup(void)
{
    if (pv_lock)
        ticket_blocker_use(&kvm_ticket_blocker);
    else
        pv_lock_ops = native_lock_ops;
}

const struct pv_lock_ops kvm_lock_ops = {
    .name = "kvm halting ticket",
    .wait = pv_ticket_wait,
    .unlock = pv_ticket_unlock,
    .setup = kvm_lock_setup,
    .blocked = kvm_lock_halts,
    .kicked = kvm_lock_kicks,
};
