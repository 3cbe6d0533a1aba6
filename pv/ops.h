/* The paravirt ops tables: one struct of function pointers per concern,
 * their members made from the registry (pv/op_list.h). arch/x86/native/
 * and xen/ each define every op; each backend's install function
 * (native_install, xen_install) assigns every table once, before
 * kernel_main(). Kernel code calls the wrappers in pv/irq.h, pv/mmu.h,
 * pv/cpu.h and kernel/time.h, never the CPU or the hypervisor directly. */
#ifndef PV_OPS_H
#define PV_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pv/op_list.h"
#include "pv/site.h"

struct boot_info;
struct pv_backend;

struct cpuid_result {
    uint32_t eax, ebx, ecx, edx;
};

#define PV_SITE_MEMBER_(a, table, op) PV_OP_RET(op)(*op) PV_OP_PARAMS(op);
#define PV_CALL_MEMBER_(a, table, op, ret, params) ret(*op) params;
#define PV_MEMBERS(table) PV_SITES_##table(PV_SITE_MEMBER_, ~) PV_CALLS_##table(PV_CALL_MEMBER_, ~)

/* Tour 50: The ops tables.
 * Every difference between bare metal and a Xen PV guest is a slot in one
 * of these structs of function pointers, and every slot is a line of the
 * registry, pv/op_list.h. Kernel code calls the wrappers in pv/irq.h,
 * pv/mmu.h and pv/cpu.h; only arch/x86/native/ and xen/ fill the slots. */
struct pv_cpu_ops {
    PV_MEMBERS(cpu)
};
struct pv_irq_ops {
    PV_MEMBERS(irq)
};
struct pv_mmu_ops {
    PV_MEMBERS(mmu)
};
struct pv_time_ops {
    PV_MEMBERS(time)
};
struct pv_machine_ops {
    PV_MEMBERS(machine)
};
struct pv_patch_ops {
    PV_MEMBERS(patch)
};

extern struct pv_cpu_ops pv_cpu_ops;
extern struct pv_irq_ops pv_irq_ops;
extern struct pv_mmu_ops pv_mmu_ops;
extern struct pv_time_ops pv_time_ops;
extern struct pv_machine_ops pv_machine_ops;
extern struct pv_patch_ops pv_patch_ops;

/* What the installed backend is: a name for logs and result lines, the
 * kind of guest when the platform has more than one worth telling apart
 * in results, and the capabilities code may ask for instead of comparing
 * names. */
struct pv_info {
    const char *name;    /* "native", "xen-pv", "xen-pvh" or "kvm" */
    const char *variant; /* "domu" for a Xen domU; 0 for the reference guest */
    unsigned caps;       /* PV_CAP_* */
};

#define PV_CAP_XEN (1u << 0)     /* a Xen guest, PV or PVH: hypercalls and event channels work */
#define PV_CAP_XEN_PV (1u << 1)  /* a Xen PV guest: Xen writes its page tables (xen.mmu=) */
#define PV_CAP_XEN_PVH (1u << 2) /* a Xen PVH guest: the hardware's or Xen's way, per op */
#define PV_CAP_NATIVE_SITES (1u << 3) /* sites take the native forms: natively and under PVH */
/* The guest calibrates a timer of its own: natively (TSC and APIC timer
 * against the PIT) and under PVH (the APIC timer, with xen.timer=lapic). */
#define PV_CAP_CALIBRATES (1u << 4)
/* A block device is registered (tools/run --disk): set by the benchmark
 * runner once the probes found one, not by an install function. */
#define PV_CAP_DISK (1u << 5)
#define PV_CAP_KVM (1u << 6) /* a KVM guest: KVM's paravirtual features, or the hardware's way */

extern struct pv_info pv_info;

#define X86_EFLAGS_IF (1UL << 9)

/* What each site op's table slot points at now, indexed by enum pv_op (0
 * for an empty slot): the targets a backend may turn indirect calls into. */
void pv_ops_current_targets(uint64_t targets[]);

/* The address of op's table slot: what an unpatched site calls through. */
uint64_t pv_op_slot(enum pv_op op);

/* A backend BE defines, for every op, a function named BE_<op>; for a site
 * op the table slot is BE_pv_<op>, the callee-save thunk PV_THUNKS(BE)
 * (pv/call.h) makes around it. These declare all of them, so a definition
 * with the wrong type fails to compile, and fill a table from them. */
#define PV_DECLARE_SITE_(be, table, op)                                                            \
    PV_OP_RET(op) be##_##op PV_OP_PARAMS(op);                                                      \
    PV_OP_RET(op) be##_pv_##op PV_OP_PARAMS(op);
#define PV_DECLARE_CALL_(be, table, op, ret, params) ret be##_##op params;
#define PV_DECLARE_TABLE_(be, table)                                                               \
    PV_SITES_##table(PV_DECLARE_SITE_, be) PV_CALLS_##table(PV_DECLARE_CALL_, be)
#define PV_DECLARE_BACKEND(be)                                                                     \
    PV_DECLARE_TABLE_(be, cpu)                                                                     \
    PV_DECLARE_TABLE_(be, irq)                                                                     \
    PV_DECLARE_TABLE_(be, mmu)                                                                     \
    PV_DECLARE_TABLE_(be, time)                                                                    \
    PV_DECLARE_TABLE_(be, machine)                                                                 \
    PV_DECLARE_TABLE_(be, patch)

#define PV_SITE_SLOT_(be, table, op) .op = be##_pv_##op,
#define PV_CALL_SLOT_(be, table, op, ret, params) .op = be##_##op,
/* (struct pv_irq_ops)PV_TABLE(xen, irq): the whole table of backend BE. */
#define PV_TABLE(be, table)                                                                        \
    {                                                                                              \
        PV_SITES_##table(PV_SITE_SLOT_, be) PV_CALLS_##table(PV_CALL_SLOT_, be)                    \
    }

#endif
