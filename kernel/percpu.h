/* Per-CPU data: one area per CPU, found through the GS base, which each
 * CPU points at its own area once (pv_cpu_ops.set_percpu_base: natively
 * a wrmsr, under Xen a hypercall). A load from %gs:offset then reaches
 * this CPU's copy in one instruction, with no CPU number to look up:
 * that is what lets a patched site address per-CPU state in place. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include <stddef.h>
#include <stdint.h>

#define MAX_CPUS 8
#define PERCPU_PLATFORM_SIZE 64

struct thread;

struct percpu {
    struct percpu *self;   /* at %gs:0, so this_cpu() is one load */
    unsigned cpu;          /* 0 is the boot CPU */
    struct thread *thread; /* the thread running here (kernel/sched.c) */
    /* The platform's per-CPU state, at a fixed offset a patched site can
     * name: Xen places this vCPU's vcpu_info here (xen/pv/cpu.c). */
    _Alignas(64) uint8_t platform[PERCPU_PLATFORM_SIZE];
} __attribute__((aligned(64)));

extern struct percpu percpu_areas[MAX_CPUS];

/* Fills cpu's area and points the calling CPU's GS base at it: the first
 * thing each CPU does, before any op that keeps per-CPU state. */
void percpu_init(unsigned cpu);

/* The calling CPU's area. A thread may move to another CPU between two
 * calls, so use the result with interrupts disabled (or sched_lock held). */
static inline struct percpu *this_cpu(void)
{
    struct percpu *p;

    __asm__ volatile("mov %%gs:0, %0" : "=r"(p));
    return p;
}

/* The running thread: one load, so it cannot be torn by a move to
 * another CPU halfway, as reading cpu then that CPU's slot could. */
static inline struct thread *this_cpu_current(void)
{
    struct thread *t;

    __asm__ volatile("mov %%gs:%c1, %0" : "=r"(t) : "i"(offsetof(struct percpu, thread)));
    return t;
}

/* The calling CPU's number, 0 .. MAX_CPUS-1. */
static inline unsigned cpu_index(void)
{
    unsigned cpu;

    __asm__ volatile("movl %%gs:%c1, %0" : "=r"(cpu) : "i"(offsetof(struct percpu, cpu)));
    return cpu;
}

#if defined(CONFIG_DEBUG) && CONFIG_DEBUG
/* Panics, naming fn, unless the caller cannot move to another CPU. */
void percpu_check_pinned(const char *fn);
#else
static inline void percpu_check_pinned(const char *fn)
{
    (void)fn;
}
#endif

/* This CPU's element of a per-CPU array (array[MAX_CPUS]), for a caller
 * that cannot move to another CPU while it uses the element: interrupts
 * off, preemption off, or a thread pinned to this CPU. A DEBUG=1 build
 * checks that and panics otherwise; the others trust it. */
#define this_cpu_elem(array) (percpu_check_pinned(__func__), &(array)[cpu_index()])

#endif
