/* The paravirt ops tables: one struct of function pointers per concern.
 * arch/x86/ fills them with native code, xen/ with Xen's; the entry path
 * installs one set (pv_install_*) before kernel_main(). Kernel code outside
 * arch/ and xen/ calls the wrappers in pv/irq.h and kernel/time.h, never the
 * CPU or the hypervisor directly. */
#ifndef PV_OPS_H
#define PV_OPS_H

#include <stdint.h>

/* Tour 5: The ops tables.
 * Every difference between bare metal and a Xen PV guest is a slot in one
 * of these structs of function pointers. Kernel code calls the wrappers in
 * pv/irq.h, pv/mmu.h and pv/cpu.h; only arch/x86/ and xen/ fill the slots. */
/* Interrupt-flag ops. "flags" is an RFLAGS image: only IF (bit 9) matters. */
struct pv_irq_ops {
    void (*irq_disable)(void);
    void (*irq_enable)(void); /* delivers anything that became pending */
    unsigned long (*save_fl)(void);
    void (*restore_fl)(unsigned long flags);
    void (*safe_halt)(void); /* enable and wait for an interrupt, with no lost wake-up */
};

/* Time: a monotonic clock and one one-shot timer per CPU. */
struct pv_time_ops {
    uint64_t (*now_ns)(void);                    /* nanoseconds since boot, monotonic */
    void (*timer_oneshot)(uint64_t deadline_ns); /* call the timer handler at or after deadline */
};

/* Page-table ops. ptep is where the kernel reads the entry (its virtual
 * address); how it is written is the backend's business. */
struct pv_mmu_ops {
    uint64_t (*read_cr3)(void);
    void (*write_cr3)(uint64_t cr3);
    void (*flush_tlb_one)(uint64_t va);
    void (*set_pte)(uint64_t *ptep, uint64_t val);
    uint64_t (*ptep_modify_prot_start)(uint64_t *ptep); /* returns the entry */
    void (*ptep_modify_prot_commit)(uint64_t *ptep, uint64_t val);
    void (*enter_lazy_mmu)(void); /* updates may be batched... */
    void (*leave_lazy_mmu)(void); /* ...until here */
    /* Rare, so called through the table from C, never patched (no site):
     * the zeroed frame at pa is about to become a level-`level` table... */
    void (*make_page_table)(uint64_t pa, int level);
    /* ...and is linked in by writing an entry of a level 2..4 table. */
    void (*set_table_entry)(uint64_t *entryp, uint64_t val);
};

/* CPU ops: what the kernel asks the CPU about itself. */
struct cpuid_result {
    uint32_t eax, ebx, ecx, edx;
};

struct pv_cpu_ops {
    struct cpuid_result (*cpuid)(uint32_t leaf, uint32_t subleaf);
    uint64_t (*read_cr2)(void); /* the linear address of the last #PF */
};

extern struct pv_cpu_ops pv_cpu_ops;
extern struct pv_irq_ops pv_irq_ops;
extern struct pv_mmu_ops pv_mmu_ops;
extern struct pv_time_ops pv_time_ops;

#define X86_EFLAGS_IF (1UL << 9)

/* What the installed backend is: a name for logs and result lines, and the
 * capabilities code may ask for instead of comparing names. */
struct pv_info {
    const char *name; /* "native" or "xen" */
    unsigned caps;    /* PV_CAP_* */
};

#define PV_CAP_XEN_PV (1u << 0) /* a Xen PV guest: hypercalls and event channels work */

extern struct pv_info pv_info;

/* What each op's table slot points at now, indexed by enum pv_op (0 for
 * an empty slot): the targets a backend may turn indirect calls into. */
void pv_ops_current_targets(uint64_t targets[]);

#endif
