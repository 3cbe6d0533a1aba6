; Native trap entry: one stub per vector pushes a zero error code where the
; CPU does not push one, then the vector, so every trap reaches
; trap_dispatch(struct trap_frame *) with the same layout (trap_frame.h).

bits 64
extern trap_dispatch

; Vectors for which the CPU pushes an error code (Intel SDM vol. 3, 6.13).
%define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

section .text
%assign v 0
%rep 256
align 16
trap_stub_ %+ v:
%if HAS_ERROR_CODE(v) == 0
    push 0
%endif
    push v
    jmp trap_common
%assign v v + 1
%endrep

trap_common:
    push rax
    push rbx
    push rcx
    push rdx
    push rsi
    push rdi
    push rbp
    push r8
    push r9
    push r10
    push r11
    push r12
    push r13
    push r14
    push r15
    cld                             ; the C ABI expects DF clear
    mov rdi, rsp                    ; the CPU aligned rsp to 16 before its pushes; 22 qwords keep it so
    call trap_dispatch
    pop r15
    pop r14
    pop r13
    pop r12
    pop r11
    pop r10
    pop r9
    pop r8
    pop rbp
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rbx
    pop rax
    add rsp, 16                     ; vector and error code
    iretq

section .rodata
align 8
global trap_stubs
trap_stubs:
%assign v 0
%rep 256
    dq trap_stub_ %+ v
%assign v v + 1
%endrep
