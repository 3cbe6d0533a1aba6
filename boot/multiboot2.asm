; The multiboot2 entry: GRUB loads the ELF at its physical addresses and
; jumps here in 32-bit protected mode, paging off,
; eax = 0x36d76289 (the multiboot2 loader magic), ebx = physical address of
; the boot information.  We check the magic and go on to long mode, where
; C's multiboot2_start(info, magic) takes over.

bits 32

MB2_HEADER_MAGIC  equ 0xe85250d6
MB2_ARCH_I386     equ 0             ; "i386 protected mode" is the x86 entry state
MB2_LOADER_MAGIC  equ 0x36d76289
MB2_TAG_END       equ 0
MB2_TAG_ENTRY     equ 3             ; entry address tag: GRUB jumps here, not to e_entry

extern long_mode_enter
extern early_fail
extern multiboot2_start

section .multiboot2 progbits alloc noexec nowrite align=8
align 8
mb2_header:
    dd MB2_HEADER_MAGIC
    dd MB2_ARCH_I386
    dd mb2_header_end - mb2_header
    dd -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
align 8
    dw MB2_TAG_ENTRY, 0
    dd 12
    dd multiboot2_entry
align 8                              ; every tag starts 8-byte aligned
    dw MB2_TAG_END, 0
    dd 8
mb2_header_end:

section .boot.text progbits alloc exec nowrite align=16
global multiboot2_entry
multiboot2_entry:
    cmp eax, MB2_LOADER_MAGIC
    jne .bad_magic
    mov edi, ebx                    ; arg0: boot information
    mov esi, eax                    ; arg1: loader magic, for the C side to print
    mov ebp, multiboot2_start
    jmp long_mode_enter
.bad_magic:
    mov esi, msg_bad_magic
    jmp early_fail

section .rodata
msg_bad_magic: db "entered at multiboot2_entry without the multiboot2 magic", 0
