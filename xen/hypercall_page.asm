; The hypercall page: 4 KiB that Xen overwrites, while it builds the domain,
; with one 32-byte stub per hypercall (the HYPERCALL_PAGE note in
; xen/elfnotes.c gives its address). linker.ld puts it first in .text so it
; is page-aligned and executable. It starts as int3 so that calling into a
; page Xen did not fill traps at once instead of running into zeros.

section .text.hypercall_page progbits alloc exec nowrite align=4096
global hypercall_page
hypercall_page:
    times 4096 db 0xcc
