/* KVM's pv spinlock: the ticket lock, whose waiter, after spinning a
 * while, halts its vCPU instead of burning time the holder's vCPU (or the
 * next waiter's) may need, and whose unlocker kicks the vCPU of the next
 * ticket with KVM_HC_KICK_CPU. Only the next ticket can go, so only its
 * waiter is kicked; a kick that comes before the halt makes the halt
 * return at once, so none is lost. */
#include <linux/kvm_para.h>

#include "arch/x86/native/backend.h"
#include "kernel/cmdline.h"
#include "kernel/exit.h"
#include "kernel/preempt.h"
#include "kernel/spinlock.h"
#include "kernel/ticket_lock.h"
#include "kvm/backend.h"
#include "kvm/hypercall.h"
#include "pv/irq.h"

#define SPINS_BEFORE_HALTING 1024
#define WAIT_DEPTH 4 /* a thread's wait, and interrupts' nested in it */

static bool pv_lock = true;
OPTION_BOOL_WHERE(PV_CAP_KVM, pv_lock, "kvm.lock",
                  "KVM: a contended lock's waiter halts and the unlocker kicks it "
                  "(KVM_HC_KICK_CPU), or it spins");

/* What a vCPU halted for: lock NULL when nothing. */
struct ticket_wait {
    uint32_t ticket;
    struct spinlock *lock;
};

static struct ticket_wait waits[MAX_CPUS][WAIT_DEPTH];
static unsigned depth[MAX_CPUS];
static uint32_t waiters; /* records set: unlocks scan only then */
static uint64_t halts, kicks;

/* KVM ABI (KVM_HC_KICK_CPU): flags 0 and an APIC id; that vCPU's hlt
 * returns, or its next one does. */
static void kick(unsigned cpu)
{
    __atomic_fetch_add(&kicks, 1, __ATOMIC_RELAXED);
    kvm_hypercall4(KVM_HC_KICK_CPU, 0, native_cpu_apic_id(cpu), 0, 0);
}

/* Halts with interrupts as the caller had them: on, the tick still ends
 * a halt whose holder is a preempted thread of this same CPU, and
 * preemption is held off meanwhile, since the record is this CPU's. The
 * seq_cst store, add and load pair with unlock_and_kick's. */
static void halt_for_ticket(struct spinlock *l, uint32_t mine)
{
    unsigned long flags = irq_save();
    bool irqs_on = flags & X86_EFLAGS_IF;

    if (irqs_on)
        preempt_disable();
    unsigned cpu = cpu_index();
    if (depth[cpu] == WAIT_DEPTH)
        panic("kvm: lock waits nested %u deep on CPU %u", WAIT_DEPTH + 1, cpu);
    struct ticket_wait *w = &waits[cpu][depth[cpu]++];
    w->ticket = mine;
    __atomic_store_n(&w->lock, l, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&l->owner, __ATOMIC_SEQ_CST) != mine) {
        __atomic_fetch_add(&halts, 1, __ATOMIC_RELAXED);
        if (irqs_on) {
            safe_halt();
            irq_disable();
        } else {
            __asm__ volatile("hlt" ::: "memory");
        }
    }
    __atomic_store_n(&w->lock, NULL, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    depth[cpu]--;
    irq_restore(flags);
    if (irqs_on)
        preempt_enable();
}

static void ticket_wait_halting(struct spinlock *l, uint32_t mine)
{
    for (unsigned spins = 0; !ticket_served(l, mine); spins++) {
        if (spins < SPINS_BEFORE_HALTING) {
            __builtin_ia32_pause();
            continue;
        }
        halt_for_ticket(l, mine);
        spins = 0;
    }
}

static void kick_next(struct spinlock *l, uint32_t next)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        for (unsigned i = 0; i < WAIT_DEPTH; i++) {
            struct ticket_wait *w = &waits[cpu][i];
            if (__atomic_load_n(&w->lock, __ATOMIC_SEQ_CST) == l &&
                __atomic_load_n(&w->ticket, __ATOMIC_RELAXED) == next) {
                kick(cpu);
                return;
            }
        }
}

/* seq_cst, not release: the owner store must not pass the load of
 * waiters (x86 reorders a store after a later load). */
static void unlock_and_kick(struct spinlock *l)
{
    uint32_t next = l->owner + 1;

    __atomic_store_n(&l->owner, next, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST))
        kick_next(l, next);
}

static uint64_t kvm_lock_halts(void)
{
    return __atomic_load_n(&halts, __ATOMIC_RELAXED);
}

static uint64_t kvm_lock_kicks(void)
{
    return __atomic_load_n(&kicks, __ATOMIC_RELAXED);
}

/* kvm.lock=off: the native ticket lock, spinning, before any lock is
 * contended. */
static void kvm_lock_setup(void)
{
    if (!pv_lock)
        pv_lock_ops = native_lock_ops;
}

const struct pv_lock_ops kvm_lock_ops = {
    .name = "kvm halting ticket",
    .wait = ticket_wait_halting,
    .unlock = unlock_and_kick,
    .setup = kvm_lock_setup,
    .blocked = kvm_lock_halts,
    .kicked = kvm_lock_kicks,
};
