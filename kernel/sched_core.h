/* What the scheduler's own files share (kernel/sched.c, kernel/thread.c,
 * kernel/wait_queue.c, arch/x86/thread_arch.c); other code uses
 * kernel/sched.h.
 *
 * sched_lock protects the run queue, the sleep list, every wait queue's
 * list and every thread's state. It is always taken with interrupts
 * disabled, and it is held across context_switch(): the thread that
 * switches away takes it, the thread that runs next releases it. */
#ifndef KERNEL_SCHED_CORE_H
#define KERNEL_SCHED_CORE_H

#include "kernel/spinlock.h"
#include "kernel/thread.h"

extern struct spinlock sched_lock;

/* The canary every stack keeps in its lowest word, and the red zone no
 * stack may reach (kernel/thread.c says why). */
#define STACK_CANARY 0x5ac4ca4a12f00d15ULL
#define STACK_RED_ZONE 2048

/* The stack whose lowest word is at bottom has lost its canary or its
 * pointer sp is in the red zone. */
static inline bool stack_in_danger(uint64_t bottom, uint64_t sp)
{
    return *(const uint64_t *)bottom != STACK_CANARY || sp - bottom < STACK_RED_ZONE;
}

/* Panics: the stack [bottom, ...) of `name` is overwritten or nearly full. */
__attribute__((noreturn)) void stack_overflow(const char *name, uint64_t bottom, uint64_t sp);

/* At every switch, for the thread switched away from, whose stack pointer
 * is sp: a few instructions, as it runs on every switch. */
static inline void stack_check_thread(const struct thread *t, uint64_t sp)
{
    if (stack_in_danger((uint64_t)t->stack_bottom, sp))
        stack_overflow(t->name, (uint64_t)t->stack_bottom, sp);
}

/* With sched_lock held: marks the current thread BLOCKED and runs another.
 * Returns, holding sched_lock again, once sched_wake_locked() has made it
 * runnable and it has been switched back in. */
void sched_block_locked(void);

/* With sched_lock held: makes t runnable if it is BLOCKED. */
void sched_wake_locked(struct thread *t);

/* Puts a new thread on the run queue (kernel/thread.c). */
void sched_make_runnable(struct thread *t);

/* Returns once t is DEAD and switched away from for good: its stack is
 * then free to reuse. */
void sched_wait_dead(struct thread *t);

/* A new thread's first act: releases the sched_lock its creator's switch
 * handed over. Interrupts stay disabled. */
void sched_finish_first_switch(void);

/* A thread with a stack, ready to run entry(arg) but on no queue; NULL
 * when every stack slot is taken (kernel/thread.c). */
struct thread *thread_alloc(const char *name, void (*entry)(void *), void *arg);

/* A secondary CPU's last step of bring-up (kernel/smp.c), on idle's own
 * stack with interrupts disabled: idle becomes this CPU's idle thread and
 * runs. idle comes from thread_alloc() but never ran from its context. */
__attribute__((noreturn)) void sched_run_idle(struct thread *idle);

/* The highest address of t's stack: where a CPU started on it begins. */
uint64_t thread_stack_top(const struct thread *t);

/* Panics unless every stack slot's guard page is unmapped (the self-test). */
void thread_check_stack_guards(void);

#endif
