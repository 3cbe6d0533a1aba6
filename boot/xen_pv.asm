; The 64-bit Xen PV entry: Xen starts dom0 here (the ENTRY note in
; xen/elfnotes.c) already in long mode, in guest kernel mode (ring 3 on the
; CPU), with paging on and its bootstrap page tables mapping the image at
; its link addresses; rsi = virtual address of start_info, rsp = the top of
; a bootstrap stack Xen placed after its page tables. Event delivery is
; masked in vcpu_info. C's xen_start(start_info, xen_stack_top) takes over.
;
; void xen_start(start_info_t *si, uint64_t xen_stack_top);

bits 64

extern boot_stack_top
extern xen_start

section .text
; Tour 30: The Xen door.
; Xen has already built page tables and entered long mode for us, and runs
; this kernel in ring 3, where privileged instructions fault. There is no
; cli here (it would fault too): the guest starts with events masked, the
; byte evtchn_upcall_mask of its vcpu_info (its page of state shared with
; Xen) set to 1. That byte is a PV guest's interrupt flag. `xen_start`
; installs Xen's ops tables.
global xen_pv_entry
xen_pv_entry:
    cld
    mov rdi, rsi                    ; arg0: start_info
    mov rsi, rsp                    ; arg1: where Xen's bootstrap area ends
    mov rsp, boot_stack_top         ; the same boot stack (and guard page) as native
    xor ebp, ebp                    ; ends the frame-pointer chain for backtraces
    call xen_start
    ud2                             ; xen_start never returns
