; Xen PV trap entry: one stub per exception vector (0-31), registered with
; HYPERVISOR_set_trap_table (xen/pv/traps.c). Each stub turns Xen's frame
; into the native one (xen/pv/frame.inc), so every trap reaches
; trap_dispatch(struct trap_frame *) exactly as it does natively.

bits 64
%include "xen/pv/frame.inc"

extern trap_dispatch

; Vectors for which the CPU (and so Xen) pushes an error code (Intel SDM vol. 3, 6.13).
%define HAS_ERROR_CODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

section .text
%assign v 0
%rep 32
align 16
xen_trap_stub_ %+ v:
    XEN_POP_RCX_R11
%if HAS_ERROR_CODE(v) == 0
    push 0
%endif
    push v
    jmp xen_trap_common
%assign v v + 1
%endrep

xen_trap_common:
    SAVE_GENERAL_REGS
    mov rdi, rsp                    ; Xen aligned the frame; 22 qwords keep rsp aligned
    call trap_dispatch
    RESTORE_GENERAL_REGS
    add rsp, 16                     ; vector and error code
    XEN_IRET

section .rodata
align 8
global xen_trap_stubs
xen_trap_stubs:
%assign v 0
%rep 32
    dq xen_trap_stub_ %+ v
%assign v v + 1
%endrep
