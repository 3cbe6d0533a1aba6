/* Paravirt call sites, in inline asm.
 *
 * A wrapper (pv/irq.h, pv/mmu.h) is one asm statement:
 *   __asm__ volatile(PV_OP_ASM(op) : outputs : inputs, PV_OP_OPERANDS(table, op) : ...);
 * In a paravirt build PV_OP_ASM is the site: `call *TABLE_SLOT(%rip)`
 * (FF 15 rel32, 6 bytes), padded with NOPs to the op's length, with its
 * descriptor (pv/site.h) recorded in .pv_sites. In a PARAVIRT=n build it is
 * the op's native instructions from the registry, recorded in
 * .pv_native_sites so a test can compare the two builds. The callee keeps
 * the callee-save convention (pv/site.h), so a site clobbers only what its
 * descriptor says, plus flags and memory.
 *
 * PV_THUNKS(BE) wraps each BE_<op> of a backend in an asm entry BE_pv_<op>
 * that saves every caller-saved register (and rax for void ops): what the
 * ops tables point at, and what the Xen patcher turns indirect calls into.
 */
#ifndef PV_CALL_H
#define PV_CALL_H

#include "pv/site.h"

/* make PARAVIRT=n builds with CONFIG_PARAVIRT=0: every wrapper emits the
 * native instructions directly, with no table, no site and no padding. */
#ifndef CONFIG_PARAVIRT
#define CONFIG_PARAVIRT 1
#endif

/* One descriptor (pv/site.h) in `section` for the code from local label
 * 771 to label `end`: address, op, length, clobbers. */
#define PV_DESCRIPTOR(section, end, clobbers)                                                      \
    ".pushsection " section ", \"a\"\n\t"                                                          \
    ".balign 8\n\t"                                                                                \
    ".quad 771b\n\t"                                                                               \
    ".short %c[op]\n\t"                                                                            \
    ".byte " end "b - 771b\n\t"                                                                    \
    ".byte " clobbers "\n\t"                                                                       \
    ".long 0\n\t"                                                                                  \
    ".popsection\n"

#define PV_STR_(x) #x
#define PV_STR(x) PV_STR_(x)

/* The call, then padding to the op's length: one NOP, or past the
 * longest a short jmp over int3s, as the patcher pads (pv_fill_padding),
 * so an unpatched site runs one instruction more however long its op's
 * longest template is. */
/* clang-format off */
#define PV_SITE(call_insn)                                                     \
    "771:\n\t" call_insn "\n"                                                  \
    "772:\n\t"                                                                 \
    ".if (772b - 771b) > %c[len]\n\t"                                          \
    ".error \"pv site longer than its length\"\n\t"                            \
    ".elseif %c[len] - (772b - 771b) > " PV_STR(PV_NOP_MAX_LEN) "\n\t"         \
    ".byte 0xeb, %c[len] - (772b - 771b) - 2\n\t"                             \
    ".skip %c[len] - (772b - 771b) - 2, 0xcc\n\t"                             \
    ".elseif (772b - 771b) < %c[len]\n\t"                                      \
    ".nops %c[len] - (772b - 771b)\n\t"                                        \
    ".endif\n"                                                                 \
    "773:\n\t" PV_DESCRIPTOR(".pv_sites", "773", "%c[clob]")
/* clang-format on */

#define PV_INDIRECT_CALL PV_SITE("call *%c[slot](%%rip)")

/* The no-paravirt build's version of a wrapper: the instructions alone,
 * recorded in .pv_native_sites (same layout, len = the instructions) so a
 * test can compare a patched site with what a native build has there. */
#define PV_NATIVE_SITE(insns)                                                                      \
    "771:\n\t" insns "\n772:\n\t" PV_DESCRIPTOR(".pv_native_sites", "772", "0")

#if CONFIG_PARAVIRT
/* (The asm operand [op] is the op's number, so "name" names the op here.) */
#define PV_OP_ASM(name) PV_INDIRECT_CALL
#define PV_OP_OPERANDS(table, name)                                                                \
    [slot] "i"(&pv_##table##_ops.name), [op] "i"(PV_OP_##name), [len] "i"(PV_OP_LEN(name)),        \
        [clob] "i"(PV_OP_CLOBBERS(name))
#else
#define PV_OP_ASM(name) PV_NATIVE_SITE(PV_OP_NATIVE(name))
#define PV_OP_OPERANDS(table, name) [op] "i"(PV_OP_##name)
#endif

/* Saves rcx rdx rsi rdi r8-r11 (and rax when void) around fn, and aligns
 * the stack: a site may sit anywhere in a function. */
#define PV_THUNK_BODY(name, fn, save_rax, restore_rax, saved)                                      \
    __asm__(".pushsection .text\n\t"                                                               \
            ".globl " #name "\n\t"                                                                 \
            ".type " #name ", @function\n" #name ":\n\t"                                           \
            "push %rbp\n\t"                                                                        \
            "mov %rsp, %rbp\n\t" save_rax "push %rcx\n\tpush %rdx\n\tpush %rsi\n\t"                \
            "push %rdi\n\tpush %r8\n\tpush %r9\n\t"                                                \
            "push %r10\n\tpush %r11\n\t"                                                           \
            "and $-16, %rsp\n\t"                                                                   \
            "call " #fn "\n\t"                                                                     \
            "lea -" #saved "(%rbp), %rsp\n\t"                                                      \
            "pop %r11\n\tpop %r10\n\tpop %r9\n\t"                                                  \
            "pop %r8\n\tpop %rdi\n\tpop %rsi\n\t"                                                  \
            "pop %rdx\n\tpop %rcx\n\t" restore_rax "pop %rbp\n\t"                                  \
            "ret\n\t"                                                                              \
            ".size " #name ", . - " #name "\n\t"                                                   \
            ".popsection")

#define PV_THUNK_NONE(name, fn) PV_THUNK_BODY(name, fn, "push %rax\n\t", "pop %rax\n\t", 72)
#define PV_THUNK_RAX(name, fn) PV_THUNK_BODY(name, fn, "", "", 64)

/* A thunk BE_pv_<op> around BE_<op> for every site op: a void op's thunk
 * keeps rax too, a value op's returns it. */
#define PV_THUNK_OF_(be, table, op) PV_APPLY_(PV_OP_THUNK_KIND(op), be##_pv_##op, be##_##op);
#define PV_THUNKS(be) PV_SITES(PV_THUNK_OF_, be)

#endif
