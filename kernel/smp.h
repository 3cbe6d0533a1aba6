/* Several CPUs: starting the others once the boot CPU has patched every
 * site, and what each one runs once it is up. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdbool.h>

/* Starts every CPU the platform offers (smp.cpus= caps them), each on an
 * idle thread of its own, and prints one line per CPU and a summary. Call
 * once, after sched_init(). */
void smp_start_cpus(void);

/* Where a secondary CPU's bring-up ends: its backend has it in long mode
 * on the stack start_cpu was given, its GS base set (percpu_init(cpu)),
 * traps and its timer working, interrupts disabled. Never returns. */
__attribute__((noreturn)) void smp_cpu_main(unsigned cpu);

/* Returns once every running CPU has taken an interrupt and serialized,
 * so none still runs instructions it fetched before the call. Needs
 * interrupts enabled; one caller at a time (kernel/live_patch.c). */
void smp_sync_cores(void);

/* What every CPU does on the backend's IPI (pv_cpu_ops.send_ipi) besides
 * ending a halt: serialize, if smp_sync_cores() asked it to. */
void smp_ipi_arrived(void);

/* Parks every other online CPU in a thread of its own, interrupts off,
 * and returns their mask: the caller, in thread context with interrupts
 * on, must hold no lock another CPU may spin for with interrupts off
 * (kernel/lifecycle.c). unpark lets them go and joins the threads; with
 * resumed, each CPU first redoes its platform set-up
 * (pv_machine_ops.cpu_resume) and re-arms its timer. */
unsigned smp_park_others(void);
void smp_unpark_others(unsigned others, bool resumed);

extern unsigned smp_online_count;

/* How many CPUs are running kernel code (1 until smp_start_cpus). Inline:
 * every mprotect asks, and one CPU must stay as cheap as before SMP. */
static inline unsigned smp_cpus_online(void)
{
    return __atomic_load_n(&smp_online_count, __ATOMIC_ACQUIRE);
}

#endif
