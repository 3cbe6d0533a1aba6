#include "pv/ops.h"

#include "pv/lock_ops.h"
#include "pv/site.h"

/* Filled by the backend the entry path picked (native_install, xen_install). */
struct pv_cpu_ops pv_cpu_ops;
struct pv_irq_ops pv_irq_ops;
struct pv_mmu_ops pv_mmu_ops;
struct pv_time_ops pv_time_ops;
struct pv_machine_ops pv_machine_ops;
struct pv_patch_ops pv_patch_ops;
struct pv_info pv_info;
struct pv_lock_ops pv_lock_ops;

#define CURRENT_TARGET_(targets, table, op) targets[PV_OP_##op] = (uint64_t)pv_##table##_ops.op;

void pv_ops_current_targets(uint64_t targets[]){PV_SITES(CURRENT_TARGET_, targets)}

#define SLOT_ADDRESS_(op_wanted, table, op)                                                        \
    if ((op_wanted) == PV_OP_##op)                                                                 \
        return (uint64_t)&pv_##table##_ops.op;

uint64_t pv_op_slot(enum pv_op op)
{
    PV_SITES(SLOT_ADDRESS_, op)
    return 0;
}
