/* Paravirt call sites, in inline asm.
 *
 * PV_SITE emits one site: `call *TABLE_SLOT(%rip)` (FF 15 rel32, 6 bytes),
 * padded with NOPs to LEN bytes, and records its descriptor (pv/site.h) in
 * .pv_sites. Operands the asm text refers to:
 *   [slot] "i" (&table.member)   the ops-table slot the site calls through
 *   [op]   "i" (PV_OP_...)       [len] "i" (site length)   [clob] "i" (PV_CLOBBER_...)
 * The callee keeps the callee-save convention (pv/site.h), so a site
 * clobbers only what its descriptor says, plus flags and memory.
 *
 * PV_THUNK_VOID / PV_THUNK_RET wrap a plain C function in an asm entry that
 * saves every caller-saved register (and rax for void ops): what the ops
 * tables point at, and what the Xen patcher turns indirect calls into.
 */
#ifndef PV_CALL_H
#define PV_CALL_H

#include "pv/site.h"

/* make PARAVIRT=n builds with CONFIG_PARAVIRT=0: every wrapper emits the
 * native instructions directly, with no table, no site and no padding. */
#ifndef CONFIG_PARAVIRT
#define CONFIG_PARAVIRT 1
#endif

#define PV_SITE(call_insn)                                                                         \
    "771:\n\t" call_insn "\n"                                                                      \
    "772:\n\t"                                                                                     \
    ".if (772b - 771b) > %c[len]\n\t"                                                              \
    ".error \"pv site longer than its length\"\n\t"                                                \
    ".elseif (772b - 771b) < %c[len]\n\t"                                                          \
    ".skip %c[len] - (772b - 771b), 0x90\n\t"                                                      \
    ".endif\n"                                                                                     \
    "773:\n\t"                                                                                     \
    ".pushsection .pv_sites, \"a\"\n\t"                                                            \
    ".balign 8\n\t"                                                                                \
    ".quad 771b\n\t"                                                                               \
    ".short %c[op]\n\t"                                                                            \
    ".byte 773b - 771b\n\t"                                                                        \
    ".byte %c[clob]\n\t"                                                                           \
    ".long 0\n\t"                                                                                  \
    ".popsection\n"

#define PV_INDIRECT_CALL PV_SITE("call *%c[slot](%%rip)")

/* The no-paravirt build's version of a wrapper: the instructions alone,
 * recorded in .pv_native_sites (same layout, len = the instructions) so a
 * test can compare a patched site with what a native build has there. */
#define PV_NATIVE_SITE(insns)                                                                      \
    "771:\n\t" insns "\n"                                                                          \
    "772:\n\t"                                                                                     \
    ".pushsection .pv_native_sites, \"a\"\n\t"                                                     \
    ".balign 8\n\t"                                                                                \
    ".quad 771b\n\t"                                                                               \
    ".short %c[op]\n\t"                                                                            \
    ".byte 772b - 771b\n\t"                                                                        \
    ".byte 0\n\t"                                                                                  \
    ".long 0\n\t"                                                                                  \
    ".popsection\n"

#define PV_NATIVE_OPERANDS(op_) [op] "i"(op_)

#define PV_SITE_OPERANDS(table_slot, op_, len_, clob_)                                             \
    [slot] "i"(table_slot), [op] "i"(op_), [len] "i"(len_), [clob] "i"(clob_)

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

/* A C function only a thunk calls: the compiler sees no caller. */
#define PV_THUNKED static __attribute__((used))

#define PV_THUNK_VOID(name, fn) PV_THUNK_BODY(name, fn, "push %rax\n\t", "pop %rax\n\t", 72)
#define PV_THUNK_RET(name, fn) PV_THUNK_BODY(name, fn, "", "", 64)

#endif
