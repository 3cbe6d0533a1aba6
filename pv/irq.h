/* The interrupt flag, for all kernel code: one paravirt call site per use
 * (pv/call.h), rewritten at boot, or the bare instructions in a PARAVIRT=n
 * build. "flags" is an RFLAGS image in which only IF (X86_EFLAGS_IF)
 * matters.
 *
 * Natively sti opens interrupts one instruction late (its shadow), so
 * with the bare instruction inline, irq_enable(); irq_disable(); back to
 * back lets nothing in. */
#ifndef PV_IRQ_H
#define PV_IRQ_H

#include "pv/call.h"
#include "pv/ops.h"

#if CONFIG_PARAVIRT

#define PV_IRQ_SITE(member, op, len, clob) PV_SITE_OPERANDS(&pv_irq_ops.member, op, len, clob)

/* Tour 7: A call site and its descriptor.
 * `irq_disable` compiles to `call *pv_irq_ops(%rip)` (ff 15 + rel32, six
 * bytes), padded with a NOP to PV_SITE_LEN_IRQ_DISABLE = 7, the longest
 * replacement, and `PV_SITE` (pv/call.h) records a 16-byte descriptor in
 * .pv_sites: address, op, length, clobbers. The table slot points at a
 * thunk that saves every register, so the compiler can treat the site like
 * one instruction. Unpatched, this indirect call is what runs. */
static inline void irq_disable(void)
{
    __asm__ volatile(
        PV_INDIRECT_CALL
        :
        : PV_IRQ_SITE(irq_disable, PV_OP_IRQ_DISABLE, PV_SITE_LEN_IRQ_DISABLE, PV_CLOBBER_NONE)
        : "memory", "cc");
}

/* Delivers, before it returns, whatever became pending while disabled. */
static inline void irq_enable(void)
{
    __asm__ volatile(
        PV_INDIRECT_CALL
        :
        : PV_IRQ_SITE(irq_enable, PV_OP_IRQ_ENABLE, PV_SITE_LEN_DEFAULT, PV_CLOBBER_NONE)
        : "memory", "cc");
}

static inline unsigned long irq_save_flags(void)
{
    unsigned long flags;
    __asm__ volatile(PV_INDIRECT_CALL
                     : "=a"(flags)
                     : PV_IRQ_SITE(save_fl, PV_OP_SAVE_FL, PV_SITE_LEN_DEFAULT, PV_CLOBBER_RAX)
                     : "memory", "cc");
    return flags;
}

static inline void irq_restore(unsigned long flags)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : "D"(flags), PV_IRQ_SITE(restore_fl, PV_OP_RESTORE_FL, PV_SITE_LEN_RESTORE_FL,
                                               PV_CLOBBER_NONE)
                     : "memory", "cc");
}

/* Enables interrupts and waits for one; one that is already pending ends
 * the wait at once, so no wake-up is lost. Returns with them enabled. */
static inline void safe_halt(void)
{
    __asm__ volatile(PV_INDIRECT_CALL
                     :
                     : PV_IRQ_SITE(safe_halt, PV_OP_SAFE_HALT, PV_SITE_LEN_DEFAULT, PV_CLOBBER_NONE)
                     : "memory", "cc");
}

#else /* !CONFIG_PARAVIRT: exactly the native templates of arch/x86/native_patch.c */

static inline void irq_disable(void)
{
    __asm__ volatile(PV_NATIVE_SITE("cli") : : PV_NATIVE_OPERANDS(PV_OP_IRQ_DISABLE) : "memory");
}

static inline void irq_enable(void)
{
    __asm__ volatile(PV_NATIVE_SITE("sti") : : PV_NATIVE_OPERANDS(PV_OP_IRQ_ENABLE) : "memory");
}

static inline unsigned long irq_save_flags(void)
{
    unsigned long flags;
    __asm__ volatile(PV_NATIVE_SITE("pushf\n\tpop %%rax")
                     : "=a"(flags)
                     : PV_NATIVE_OPERANDS(PV_OP_SAVE_FL)
                     : "memory");
    return flags;
}

static inline void irq_restore(unsigned long flags)
{
    __asm__ volatile(PV_NATIVE_SITE("push %%rdi\n\tpopf")
                     :
                     : "D"(flags), PV_NATIVE_OPERANDS(PV_OP_RESTORE_FL)
                     : "memory", "cc");
}

/* sti's shadow covers hlt: an interrupt pending at sti wakes the hlt. */
static inline void safe_halt(void)
{
    __asm__ volatile(PV_NATIVE_SITE("sti\n\thlt")
                     :
                     : PV_NATIVE_OPERANDS(PV_OP_SAFE_HALT)
                     : "memory");
}

#endif /* CONFIG_PARAVIRT */

/* Disables interrupts; returns the flags to give irq_restore(). */
static inline unsigned long irq_save(void)
{
    unsigned long flags = irq_save_flags();

    irq_disable();
    return flags;
}

#endif
