; void context_switch(struct context **from, struct context *to);
;
; Switches stacks between two kernel threads. Only the SysV callee-saved
; registers (rbx rbp r12-r15) and rsp are saved: this is a function call,
; so the caller-saved registers are dead here by the ABI, and the flags
; (IF included) belong to the scheduler, which calls this with interrupts
; disabled and restores them itself on the far side. The pushes below
; build a struct context (arch/x86/thread_arch.h) under the return address.
;
; thread_trampoline: where a new thread's first switch "returns" to.
; thread_arch_prepare_stack() put entry in r12 and arg in r13.

bits 64
extern thread_arch_start

section .text

; Tour 160: Switching threads.
; The scheduler (kernel/sched.c) calls this with interrupts disabled and its
; lock held; only the callee-saved registers and rsp are saved, because for
; the compiler this is an ordinary function call. The same code runs on
; both platforms: under Xen a preemption arrives as an event upcall on the
; thread's own stack, and the switch happens on the way out of it.
global context_switch
context_switch:
    push rbp
    push rbx
    push r12
    push r13
    push r14
    push r15
    mov [rdi], rsp          ; *from = the context just pushed
    mov rsp, rsi            ; the other thread's stack...
    pop r15
    pop r14
    pop r13
    pop r12
    pop rbx
    pop rbp
    ret                     ; ...and where it called context_switch from

global thread_trampoline
thread_trampoline:
    mov rdi, r12            ; entry
    mov rsi, r13            ; arg
    call thread_arch_start  ; never returns
    ud2
