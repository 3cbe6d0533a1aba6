; Xen PV upcall entries, registered with CALLBACKOP_register (xen/events.c).
;
; void xen_event_upcall(struct trap_frame *f);  called with events masked
; void xen_failsafe(struct trap_frame *f);      never returns

bits 64
%include "xen/pv/frame.inc"

extern xen_event_upcall
extern xen_failsafe

; The vector field of an upcall's trap_frame: not an exception, so above 31.
XEN_UPCALL_VECTOR   equ 0x100
XEN_FAILSAFE_VECTOR equ 0x101

section .text

; The event callback: the exception frame without an error code. Xen has
; set the event mask; HYPERVISOR_iret restores it from the saved rflags.IF
; and, if events are pending by then, delivers the next upcall at once.
global xen_event_entry
xen_event_entry:
    XEN_POP_RCX_R11
    push 0
    push XEN_UPCALL_VECTOR
    SAVE_GENERAL_REGS
    mov rdi, rsp
    call xen_event_upcall
    RESTORE_GENERAL_REGS
    add rsp, 16
    XEN_IRET

; The failsafe callback: Xen could not return to us (a bad segment or iret
; frame). Xen ABI: it pushes ds, es, fs and gs between rcx/r11 and the
; hardware-like frame; dropping them leaves the usual layout.
global xen_failsafe_entry
xen_failsafe_entry:
    XEN_POP_RCX_R11
    add rsp, 32
    push 0
    push XEN_FAILSAFE_VECTOR
    SAVE_GENERAL_REGS
    mov rdi, rsp
    call xen_failsafe
    ud2
