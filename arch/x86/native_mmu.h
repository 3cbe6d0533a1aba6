#ifndef ARCH_X86_NATIVE_MMU_H
#define ARCH_X86_NATIVE_MMU_H

#include "pv/ops.h"

/* The native page-table ops (arch/x86/native_mmu.c). */
extern const struct pv_mmu_ops native_mmu_ops;

#endif
