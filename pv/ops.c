#include "pv/ops.h"

/* Filled by the backend the entry path picked (arch/x86/native_ops.c or xen/). */
struct pv_irq_ops pv_irq_ops;
struct pv_mmu_ops pv_mmu_ops;
struct pv_time_ops pv_time_ops;
