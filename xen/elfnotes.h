/* Emitting Xen ELF notes (name "Xen", types from <xen/elfnote.h>) from C,
 * so the note numbers come from Xen's own header. */
#ifndef XEN_ELFNOTES_H
#define XEN_ELFNOTES_H

#include <xen/elfnote.h>

#define ELFNOTE_STR_(x) #x
#define ELFNOTE_STR(x) ELFNOTE_STR_(x)

/* One note: namesz, descsz, type, "Xen\0", then desc (an assembler directive). */
#define XEN_ELFNOTE(type, desc)                                                                    \
    __asm__(".pushsection .note.Xen, \"a\", @note\n\t"                                             \
            ".balign 4\n\t"                                                                        \
            ".long 2f - 1f\n\t"                                                                    \
            ".long 4f - 3f\n\t"                                                                    \
            ".long " ELFNOTE_STR(type) "\n"                                                        \
                                       "1: .asciz \"Xen\"\n"                                       \
                                       "2: .balign 4\n"                                            \
                                       "3: " desc "\n"                                             \
                                       "4: .balign 4\n\t"                                          \
                                       ".popsection")

#endif
