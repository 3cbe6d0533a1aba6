#include "pv/ops.h"

#include "pv/site.h"

/* Filled by the backend the entry path picked (arch/x86/native_ops.c or xen/). */
struct pv_cpu_ops pv_cpu_ops;
struct pv_irq_ops pv_irq_ops;
struct pv_mmu_ops pv_mmu_ops;
struct pv_time_ops pv_time_ops;
struct pv_info pv_info;

void pv_ops_current_targets(uint64_t targets[])
{
    targets[PV_OP_IRQ_DISABLE] = (uint64_t)pv_irq_ops.irq_disable;
    targets[PV_OP_IRQ_ENABLE] = (uint64_t)pv_irq_ops.irq_enable;
    targets[PV_OP_SAVE_FL] = (uint64_t)pv_irq_ops.save_fl;
    targets[PV_OP_RESTORE_FL] = (uint64_t)pv_irq_ops.restore_fl;
    targets[PV_OP_SAFE_HALT] = (uint64_t)pv_irq_ops.safe_halt;
    targets[PV_OP_READ_CR3] = (uint64_t)pv_mmu_ops.read_cr3;
    targets[PV_OP_WRITE_CR3] = (uint64_t)pv_mmu_ops.write_cr3;
    targets[PV_OP_FLUSH_TLB_ONE] = (uint64_t)pv_mmu_ops.flush_tlb_one;
    targets[PV_OP_SET_PTE] = (uint64_t)pv_mmu_ops.set_pte;
    targets[PV_OP_PTEP_MODIFY_PROT_START] = (uint64_t)pv_mmu_ops.ptep_modify_prot_start;
    targets[PV_OP_PTEP_MODIFY_PROT_COMMIT] = (uint64_t)pv_mmu_ops.ptep_modify_prot_commit;
    targets[PV_OP_ENTER_LAZY_MMU] = (uint64_t)pv_mmu_ops.enter_lazy_mmu;
    targets[PV_OP_LEAVE_LAZY_MMU] = (uint64_t)pv_mmu_ops.leave_lazy_mmu;
}
