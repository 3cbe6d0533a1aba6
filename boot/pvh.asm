; The PVH entry: QEMU's -kernel finds XEN_ELFNOTE_PHYS32_ENTRY (xen/elfnotes.c)
; and starts us here in 32-bit flat protected mode, paging off,
; ebx = physical address of struct hvm_start_info (Xen's PVH boot ABI).
; C's pvh_start(start_info) takes over once we are in long mode.

bits 32

extern long_mode_enter
extern pvh_start

section .boot.text progbits alloc exec nowrite align=16
global pvh_entry
pvh_entry:
    mov edi, ebx                    ; arg0: hvm_start_info
    xor esi, esi
    mov ebp, pvh_start
    jmp long_mode_enter
