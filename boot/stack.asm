; The boot stack, shared by every entry path, with a guard page below it.
; The guard page is left unmapped by the final page tables, so running off
; the end of the stack faults instead of silently corrupting what lies below.

BOOT_STACK_SIZE equ 16384

section .bss.page_aligned nobits alloc write noexec align=4096
global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:  resb 4096
boot_stack_bottom: resb BOOT_STACK_SIZE
boot_stack_top:
