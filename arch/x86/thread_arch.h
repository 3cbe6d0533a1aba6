/* What the arch-free scheduler needs from the CPU: a thread's saved
 * registers, switching between two threads, and a new thread's first
 * stack frame (arch/x86/switch.asm, arch/x86/thread_arch.c). */
#ifndef ARCH_X86_THREAD_ARCH_H
#define ARCH_X86_THREAD_ARCH_H

#include <stdint.h>

/* What context_switch() pushes on the stack it leaves, lowest address
 * first: the SysV callee-saved registers and the return address. The
 * caller-saved ones need no saving: context_switch() is an ordinary call,
 * so the compiler has already assumed they are lost. */
struct context {
    uint64_t r15, r14, r13, r12, rbx, rbp;
    uint64_t rip;
};

/* Saves the callee-saved registers on the current stack, stores that
 * stack's context in *from, and resumes the thread whose context is to.
 * Returns when some later switch resumes *from. */
void context_switch(struct context **from, struct context *to);

/* Lays out a new thread's first frame at the top of its stack: the first
 * context_switch() to it enters a trampoline that finishes the switch,
 * enables interrupts, runs entry(arg), then thread_exit(). */
struct context *thread_arch_prepare_stack(void *stack_top, void (*entry)(void *), void *arg);

#endif
