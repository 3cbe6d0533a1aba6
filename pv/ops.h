/* The paravirt ops tables: one struct of function pointers per concern.
 * arch/x86/ fills them with native code, xen/ with Xen's; the entry path
 * installs one set (pv_install_*) before kernel_main(). Kernel code outside
 * arch/ and xen/ calls the wrappers in pv/irq.h and pv/time.h, never the
 * CPU or the hypervisor directly. */
#ifndef PV_OPS_H
#define PV_OPS_H

#include <stdint.h>

/* Interrupt-flag ops. "flags" is an RFLAGS image: only IF (bit 9) matters. */
struct pv_irq_ops {
    void (*irq_disable)(void);
    void (*irq_enable)(void);          /* delivers anything that became pending */
    unsigned long (*save_fl)(void);
    void (*restore_fl)(unsigned long flags);
    void (*safe_halt)(void);           /* enable and wait for an interrupt, with no lost wake-up */
};

/* Time: a monotonic clock and one one-shot timer per CPU. */
struct pv_time_ops {
    uint64_t (*now_ns)(void);                  /* nanoseconds since boot, monotonic */
    void (*timer_oneshot)(uint64_t deadline_ns);/* call the timer handler at or after deadline */
};

extern struct pv_irq_ops pv_irq_ops;
extern struct pv_time_ops pv_time_ops;

#define X86_EFLAGS_IF (1UL << 9)

#endif
