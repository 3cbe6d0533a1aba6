; Retpoline thunks for code built with -mindirect-branch=thunk-extern
; (only bench/call_retpoline.c is). Each replaces `call *%reg`:
;
;   void __x86_indirect_thunk_<reg>(void);   jumps to the address in <reg>
;
; The call pushes a return address the return stack buffer predicts; the
; mov overwrites it with the real target, so the ret goes there while any
; speculation down the predicted path spins harmlessly in pause/lfence.

bits 64
section .text

%macro RETPOLINE_THUNK 1
global __x86_indirect_thunk_%1
__x86_indirect_thunk_%1:
    call    %%set_target
%%capture:
    pause
    lfence
    jmp     %%capture
%%set_target:
    mov     [rsp], %1
    ret
%endmacro

RETPOLINE_THUNK rax
RETPOLINE_THUNK rbx
RETPOLINE_THUNK rcx
RETPOLINE_THUNK rdx
RETPOLINE_THUNK rsi
RETPOLINE_THUNK rdi
RETPOLINE_THUNK rbp
RETPOLINE_THUNK r8
RETPOLINE_THUNK r9
RETPOLINE_THUNK r10
RETPOLINE_THUNK r11
RETPOLINE_THUNK r12
RETPOLINE_THUNK r13
RETPOLINE_THUNK r14
RETPOLINE_THUNK r15
