/* The thread table and its stacks: a static pool of slots, each a guard
 * page and a stack. Allocation and freeing only; running threads is
 * kernel/sched.c's job. */
#include "kernel/sched.h"

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/thread_arch.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/sched_core.h"
#include "mm/kernel_map.h"

#define THREAD_SLOTS 24 /* the idle threads of up to 8 CPUs, and 16 more */
#define THREAD_STACK_SIZE (16 * 1024)
#define GUARD_SIZE 4096

struct stack_slot {
    uint8_t guard[GUARD_SIZE]; /* unmapped: overflow faults here */
    uint8_t stack[THREAD_STACK_SIZE];
};

_Static_assert(sizeof(struct stack_slot) % GUARD_SIZE == 0, "guards must stay page-aligned");

static struct stack_slot stack_pool[THREAD_SLOTS]
    __attribute__((aligned(4096), section(".bss.page_aligned")));
GUARD_PAGES(thread_stacks, stack_pool[0].guard, sizeof(struct stack_slot), THREAD_SLOTS);

static struct thread threads[THREAD_SLOTS]; /* threads[i] runs on stack_pool[i] */
static struct spinlock pool_lock;           /* protects threads[i].state FREE <-> not */

static struct thread *claim_free_slot(void)
{
    unsigned long flags = spin_lock_irqsave(&pool_lock);
    struct thread *t = 0;

    for (int i = 0; i < THREAD_SLOTS && !t; i++) {
        if (threads[i].state == THREAD_FREE) {
            t = &threads[i];
            t->slot = i;
            t->state = THREAD_BLOCKED; /* not FREE, not yet runnable */
        }
    }
    spin_unlock_irqrestore(&pool_lock, flags);
    return t;
}

struct thread *thread_alloc(const char *name, void (*entry)(void *), void *arg)
{
    struct thread *t = claim_free_slot();

    if (!t)
        return 0;
    t->name = name;
    t->next = t->prev = t->joiner = 0;
    t->cpu = -1;
    t->wake_ns = 0;
    t->no_preempt = 0;
    t->preempt_missed = false;
    t->stack_bottom = (uint64_t *)stack_pool[t->slot].stack;
    t->context =
        thread_arch_prepare_stack(stack_pool[t->slot].stack + THREAD_STACK_SIZE, entry, arg);
    return t;
}

uint64_t thread_stack_top(const struct thread *t)
{
    return (uint64_t)(stack_pool[t->slot].stack + THREAD_STACK_SIZE);
}

struct thread *thread_create(const char *name, void (*entry)(void *), void *arg)
{
    struct thread *t = thread_alloc(name, entry, arg);

    if (t)
        sched_make_runnable(t);
    return t;
}

struct thread *thread_create_on(unsigned cpu, const char *name, void (*entry)(void *), void *arg)
{
    struct thread *t = thread_alloc(name, entry, arg);

    if (t) {
        t->cpu = (int)cpu;
        sched_make_runnable(t);
    }
    return t;
}

void thread_join(struct thread *t)
{
    sched_wait_dead(t);
    unsigned long flags = spin_lock_irqsave(&pool_lock);
    t->state = THREAD_FREE;
    spin_unlock_irqrestore(&pool_lock, flags);
}

void thread_check_stack_guards(void)
{
    for (int i = 0; i < THREAD_SLOTS; i++) {
        if (kernel_map_is_readable((uint64_t)stack_pool[i].guard, 1))
            panic("sched: the guard page below thread stack %d is mapped", i);
    }
    kprintf("sched: %d thread stacks of %d KiB, each above an unmapped guard page\n", THREAD_SLOTS,
            THREAD_STACK_SIZE / 1024);
}

/* Stack overflow seen coming. The lowest word of every stack, just above
 * its guard page, holds a canary, and no stack may be used past its last
 * STACK_RED_ZONE bytes. A check needs no hardware help, which matters
 * under Xen: a PV guest has no IST, so a fault on an overflowed stack
 * leaves Xen nowhere to push the frame and it kills the domain. The guard
 * page stays as the backstop for an overflow no check sees. */
static bool canaries_set;

void stack_canaries_init(void)
{
    *(uint64_t *)boot_stack_bottom = STACK_CANARY;
    for (int i = 0; i < THREAD_SLOTS; i++)
        *(uint64_t *)stack_pool[i].stack = STACK_CANARY;
    canaries_set = true;
}

/* The stack holding address sp: its lowest byte and a name; false for a
 * stack that is not the boot stack or a thread's (the #DF stack). */
static bool stack_of(uint64_t sp, uint64_t *bottom, const char **name)
{
    if (sp >= (uint64_t)boot_stack_bottom && sp < (uint64_t)boot_stack_top) {
        *bottom = (uint64_t)boot_stack_bottom;
        *name = "the boot stack";
        return true;
    }
    for (int i = 0; i < THREAD_SLOTS; i++) {
        uint64_t lo = (uint64_t)stack_pool[i].stack;
        if (sp >= lo && sp < lo + THREAD_STACK_SIZE) {
            *bottom = lo;
            *name = threads[i].state == THREAD_FREE ? "a free thread slot" : threads[i].name;
            return true;
        }
    }
    return false;
}

void stack_overflow(const char *name, uint64_t bottom, uint64_t sp)
{
    canaries_set = false; /* the report itself must not check again */
    if (*(const volatile uint64_t *)bottom != STACK_CANARY)
        panic("stack overflow in %s: the canary at 0x%lx is overwritten (sp 0x%lx)", name, bottom,
              sp);
    panic("stack overflow in %s: %lu bytes left (sp 0x%lx, guard page at 0x%lx)", name, sp - bottom,
          sp, bottom - GUARD_SIZE);
}

void stack_check(void)
{
    uint64_t sp = (uint64_t)__builtin_frame_address(0), bottom;
    const char *name;

    if (canaries_set && stack_of(sp, &bottom, &name) && stack_in_danger(bottom, sp))
        stack_overflow(name, bottom, sp);
}
