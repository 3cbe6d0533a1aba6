/* Generic time: a monotonic clock and one one-shot timer, over whatever
 * pv_time_ops the platform installed (pv/ops.h). */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

#define NSEC_PER_SEC UINT64_C(1000000000)
#define NSEC_PER_MSEC UINT64_C(1000000)
#define NSEC_PER_USEC UINT64_C(1000)

/* Nanoseconds since the platform's clock started; never goes backwards. */
uint64_t time_now_ns(void);

/* The platform's reference clock (pv_time_ops.reference_ns), for the time
 * self-test's rate check: ns from some origin, or 0 when there is none;
 * *name says which, or why not. */
uint64_t time_reference_ns(const char **name);

/* What a TSC tick is in this run, for output lines: "instructions" when
 * the emulator's TSC counts them (tsc.icount, which tools/run --icount
 * sets), "tsc_ticks" otherwise. Nothing inside can tell the two apart. */
const char *tsc_unit(void);

/* Whether the TSC counts instructions (tsc.icount). QEMU's -icount runs
 * several CPUs one after another on one instruction counter, so a TSC
 * interval then counts the work of every CPU, not of the reader alone. */
bool tsc_counts_every_cpu(void);

/* Runs the timer callback once, at or after deadline_ns (time_now_ns()
 * terms); a deadline already past fires promptly. Replaces any earlier
 * deadline. Call with interrupts disabled or from the callback. */
void timer_arm(uint64_t deadline_ns);

/* This CPU's armed deadline, 0 if none: what a benchmark that arms the
 * timer again and again puts back afterwards. Interrupts disabled. */
uint64_t timer_deadline(void);

/* When the platform first delivered the one-shot last armed on this CPU,
 * early or not (time_now_ns() terms), 0 if it has not: an early delivery
 * is otherwise hidden, armed again for the rest. For the time self-test's
 * check of the timer's rate. Interrupts disabled. */
uint64_t timer_first_delivery_ns(void);

/* time.miscalibrate: the factor by which a backend that calibrates takes
 * its reference interval to be longer than it is, so its rates come out
 * that much too low; 1 when the option is off. */
#define TIME_MISCALIBRATION 4
unsigned time_miscalibration(void);

/* Asks the platform again for this CPU's armed deadline: a domain that
 * resumed elsewhere has lost its timers (kernel/lifecycle.c). */
void timer_resume(void);

/* The function the timer runs, in interrupt context with interrupts
 * disabled; it may call timer_arm() again. NULL runs nothing. */
void timer_set_callback(void (*fn)(void));

/* For the backends (the native local APIC vector, Xen's VIRQ_TIMER): the
 * one-shot fired. Runs the callback if the armed deadline has come. */
void timer_interrupt(void);

#endif
