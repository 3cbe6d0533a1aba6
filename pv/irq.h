/* The interrupt flag, for all kernel code: one paravirt call site per use
 * (pv/call.h), rewritten at boot, or the bare native instructions in a
 * PARAVIRT=n build. "flags" is an RFLAGS image in which only IF
 * (X86_EFLAGS_IF) matters.
 *
 * Natively sti opens interrupts one instruction late (its shadow), so
 * with the bare instruction inline, irq_enable(); irq_disable(); back to
 * back lets nothing in. */
#ifndef PV_IRQ_H
#define PV_IRQ_H

#include "pv/call.h"
#include "pv/ops.h"

/* Tour 70: A call site and its descriptor.
 * `irq_disable` compiles to `call *pv_irq_ops(%rip)` (ff 15 + rel32, six
 * bytes), padded with a 3-byte NOP to 9, the length pv/op_list.h gives it
 * (the longest replacement, Xen's), and `PV_SITE` (pv/call.h) records a
 * 16-byte descriptor in .pv_sites: address, op, length, clobbers. The
 * table slot points at a thunk that saves every register, so the compiler
 * can treat the site like one instruction. Unpatched, this indirect call
 * is what runs; a PARAVIRT=n build has the registry's `cli` here instead. */
static inline void irq_disable(void)
{
    __asm__ volatile(PV_OP_ASM(irq_disable) : : PV_OP_OPERANDS(irq, irq_disable) : "memory", "cc");
}

/* Delivers, before it returns, whatever became pending while disabled. */
static inline void irq_enable(void)
{
    __asm__ volatile(PV_OP_ASM(irq_enable) : : PV_OP_OPERANDS(irq, irq_enable) : "memory", "cc");
}

static inline unsigned long irq_save_flags(void)
{
    unsigned long flags;
    __asm__ volatile(PV_OP_ASM(save_fl)
                     : "=a"(flags)
                     : PV_OP_OPERANDS(irq, save_fl)
                     : "memory", "cc");
    return flags;
}

static inline void irq_restore(unsigned long flags)
{
    __asm__ volatile(PV_OP_ASM(restore_fl)
                     :
                     : "D"(flags), PV_OP_OPERANDS(irq, restore_fl)
                     : "memory", "cc");
}

/* Enables interrupts and waits for one; one that is already pending ends
 * the wait at once, so no wake-up is lost. Returns with them enabled. */
static inline void safe_halt(void)
{
    __asm__ volatile(PV_OP_ASM(safe_halt) : : PV_OP_OPERANDS(irq, safe_halt) : "memory", "cc");
}

/* Disables interrupts; returns the flags to give irq_restore(). */
static inline unsigned long irq_save(void)
{
    unsigned long flags = irq_save_flags();

    irq_disable();
    return flags;
}

#endif
