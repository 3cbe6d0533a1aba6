/* The bring-up steps kernel_main() (kernel/main.c) runs that have no
 * header of their own, grouped by the file that defines them. */
#ifndef KERNEL_MAIN_H
#define KERNEL_MAIN_H

#include "kernel/time.h"

struct boot_info;

/* How long a self-test waits, by the kernel's clock, for something that
 * must happen (a tick, an interrupt, a wakeup, a thread's first turn,
 * another CPU's step) before it calls it one that never comes. How late
 * it comes is reported, never failed: nothing bounds that under emulation
 * or a hypervisor (a domU's vCPU woke over 1 s late beside another QEMU
 * on 2 host cores). 30 s is far past any delay seen there, yet inside
 * tools/run's default 60 s, so a lost event still ends in the kernel's
 * own verdict; and the time self-test checks the clock's rate first. */
#define SELFTEST_NEVER_NS (30 * NSEC_PER_SEC)

/* mm/mm_init.c: hands the boot memory map to the frame allocator, keeping
 * out the low 1 MiB, the kernel image and anything the loader still uses. */
void mm_init(const struct boot_info *bi);

/* kernel/selftest_time.c: the boot self-test of the clock (its rate
 * against the platform's reference clock), the one-shot timer and
 * interrupt delivery, through the generic interfaces only, so it checks
 * whichever backend is installed. Panics on a failure; returns with
 * interrupts disabled. */
void selftest_time(void);

/* kernel/selftest_sched.c: checks the scheduler at boot, through the
 * generic interfaces only: preemption of threads that never yield, a
 * channel moving a million messages, and sleeps that wake, never early
 * (how late is reported). Panics on a failure; returns in the boot thread
 * with interrupts enabled and the slice timer running. */
void selftest_sched(void);

/* mm/dirty_test.c: mm.dirtytest=1 checks that changing a page's
 * protection never loses the Dirty bit the CPU set; panics if it does.
 * Call from thread context. */
void mm_dirty_test(void);

/* mm/tlb_test.c: mm.tlbtest=on checks that a write through a translation
 * another CPU revoked faults; skip-shootdown must fail. Needs 2 CPUs. */
void mm_tlb_test(void);

/* kernel/live_patch_test.c: pv.repatch_test=N rewrites restore_fl's sites and a
 * static call N times while a thread per CPU runs them; panics on a torn
 * instruction or a wrong result. Call from thread context. */
void pv_repatch_test(void);

#endif
