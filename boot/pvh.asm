; The PVH entry: QEMU's -kernel and Xen's PVH domain builder find
; XEN_ELFNOTE_PHYS32_ENTRY (xen/elfnotes.c) and start us here in 32-bit flat
; protected mode, paging off, ebx = physical address of struct
; hvm_start_info (Xen's PVH boot ABI). C's pvh_start(start_info)
; (arch/x86/pvh.c) takes over once we are in long mode.

bits 32

extern long_mode_enter
extern pvh_start

section .boot.text progbits alloc exec nowrite align=16
; Tour 10: Three ways in.
; patchbay is one ELF image with three front doors. QEMU's -kernel, and Xen
; building a PVH guest, find the PVH note (XEN_ELFNOTE_PHYS32_ENTRY in
; xen/elfnotes.c) and jump here in 32-bit protected mode with paging off.
; GRUB finds the multiboot2 header in boot/multiboot2.asm. Xen building a PV
; guest finds XEN_ELFNOTE_ENTRY and starts `xen_pv_entry` already in long
; mode. Each door does the minimum and hands over to C.
global pvh_entry
pvh_entry:
    mov edi, ebx                    ; arg0: hvm_start_info
    xor esi, esi
    mov ebp, pvh_start
    jmp long_mode_enter
