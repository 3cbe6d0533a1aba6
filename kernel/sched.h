/* Kernel threads on one CPU: round-robin with a time slice, preempted by
 * the platform's one-shot timer. Every thread has its own stack with an
 * unmapped guard page below it. All of these may sleep, so call them from
 * thread context, never from an interrupt handler. */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stdint.h>

struct thread;

/* Makes the calling (boot) thread a scheduled thread named "main",
 * creates the idle thread, takes over the timer callback and starts the
 * slice timer; leaves interrupts enabled. Call once, after time is up. */
void sched_init(void);

/* A new runnable thread that runs entry(arg), then exits; NULL when all
 * stack slots are taken. name must outlive the thread. */
struct thread *thread_create(const char *name, void (*entry)(void *), void *arg);

/* The same, bound to CPU cpu (below smp_cpus_online()): it runs there
 * only, as "main" does on the boot CPU. */
struct thread *thread_create_on(unsigned cpu, const char *name, void (*entry)(void *), void *arg);

/* Gives the CPU to the next runnable thread, if there is one. */
void thread_yield(void);

/* Sleeps until time_now_ns() >= deadline_ns; returns at once if it is. */
void sleep_until(uint64_t deadline_ns);

/* Ends the calling thread; its stack is freed by thread_join(). */
__attribute__((noreturn)) void thread_exit(void);

/* Waits for t to exit, then frees its slot. Each thread must be joined
 * exactly once, by one thread. */
void thread_join(struct thread *t);

/* The thread that is running. */
struct thread *thread_current(void);

/* Every stack's canary, just above its guard page: call once, first. */
void stack_canaries_init(void);

/* Panics, naming the stack, if the running stack's canary is overwritten
 * or fewer than its last 2 KiB are left: called at every trap and upcall
 * entry, and by code that may recurse deeply. */
void stack_check(void);

/* Keeps the running thread from being preempted until the matching
 * enable, interrupts left on; a slice that ends meanwhile ends at the
 * enable, or at the next tick if interrupts are off then. Nests. Every
 * spin_lock() holder runs so (kernel/spinlock.h): on one CPU a ticket
 * lock's waiters would otherwise each spin a whole slice per hand-over,
 * a convoy that does not break up. */
void sched_preempt_disable(void);
void sched_preempt_enable(void);

/* How many times the tick took the CPU from a running thread. */
uint64_t sched_preemptions(void);

/* How many times a tick that would have preempted found preemption off,
 * a spin_lock() held: each such preemption waited for the unlock. */
uint64_t sched_preemptions_deferred(void);

/* How many context switches there have been. */
uint64_t sched_switches(void);

/* The time the online CPUs' idle threads have spent halted since boot,
 * summed over them, in time_now_ns() nanoseconds. */
uint64_t sched_idle_ns(void);

#endif
