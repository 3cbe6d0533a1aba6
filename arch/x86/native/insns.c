/* The native site ops, made from their instructions in the registry
 * (pv/op_list.h). For each op, native_<op> is those instructions and a
 * ret, which an unpatched site reaches through its thunk native_pv_<op>;
 * the same instructions, between two labels, are the template the native
 * patcher copies into a patched site. One text for both, and for the
 * PARAVIRT=n wrappers, so the three cannot disagree. */
#include "arch/x86/native/patch.h"
#include "pv/call.h"

/* A record for the template between local labels 771 and 772. */
#define NATIVE_RECORD(variant)                                                                     \
    ".pushsection pv_native_templates, \"a\"\n\t"                                                  \
    ".balign 4\n\t"                                                                                \
    ".long 771b - .\n\t"                                                                           \
    ".short %c[op]\n\t"                                                                            \
    ".byte 772b - 771b\n\t"                                                                        \
    ".byte " #variant "\n\t"                                                                       \
    ".popsection\n"

/* native_<op>: the instructions, then ret. Extended asm, so the
 * registry's %% reads as %. */
#define NATIVE_OP_(a, table, name)                                                                 \
    __asm__ volatile(".pushsection .text, \"ax\"\n\t"                                              \
                     ".globl native_" #name "\n\t"                                                 \
                     ".type native_" #name ", @function\n"                                         \
                     "native_" #name ":\n"                                                         \
                     "771:\n\t" PV_OP_NATIVE(name) "\n"                                            \
                                                   "772:\n\t"                                      \
                                                   "ret\n\t"                                       \
                                                   ".size native_" #name ", . - native_" #name     \
                                                   "\n\t"                                          \
                                                   ".popsection\n\t" NATIVE_RECORD(0)              \
                     :                                                                             \
                     : [op] "i"(PV_OP_##name));

/* Never called: a function only so that its asm statements are extended
 * asm. Each statement moves to .text and back, so this body stays empty. */
__attribute__((used)) static void native_site_ops(void)
{
    PV_SITES(NATIVE_OP_, ~)
    /* test $0x200,%edi; jz 1f; sti; 1: sets IF when flags (rdi) have it
     * and never clears it, avoiding popf (the 2016 LKML proposal). A
     * template only: no unpatched call ever runs it. */
    __asm__ volatile(".pushsection .rodata\n"
                     "771:\n\t"
                     "test $0x200, %%edi\n\t"
                     "jz 1f\n\t"
                     "sti\n"
                     "1:\n"
                     "772:\n\t"
                     ".popsection\n\t" NATIVE_RECORD(1)
                     :
                     : [op] "i"(PV_OP_restore_fl));
}

PV_THUNKS(native)
