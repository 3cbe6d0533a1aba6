/* The register frame every trap entry builds (arch/x86/trap_entry.asm,
 * and Xen's entry in xen/), lowest address first. */
#ifndef ARCH_X86_TRAP_FRAME_H
#define ARCH_X86_TRAP_FRAME_H

#include <stdint.h>

struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code;
    uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU (or Xen) */
};

enum trap_vector {
    TRAP_DE = 0,
    TRAP_DB = 1,
    TRAP_NMI = 2,
    TRAP_BP = 3,
    TRAP_OF = 4,
    TRAP_BR = 5,
    TRAP_UD = 6,
    TRAP_NM = 7,
    TRAP_DF = 8,
    TRAP_TS = 10,
    TRAP_NP = 11,
    TRAP_SS = 12,
    TRAP_GP = 13,
    TRAP_PF = 14,
    TRAP_MF = 16,
    TRAP_AC = 17,
    TRAP_MC = 18,
    TRAP_XM = 19,
    TRAP_VE = 20,
    TRAP_CP = 21,
};

/* Addresses of the 256 entry stubs, in vector order (trap_entry.asm). */
extern const uint64_t trap_stubs[256];

typedef void (*trap_handler_fn)(struct trap_frame *f);

/* Called by every entry stub; runs the registered handler or dies loudly. */
void trap_dispatch(struct trap_frame *f);
void trap_set_handler(unsigned vector, trap_handler_fn fn);
__attribute__((noreturn)) void trap_fatal(const struct trap_frame *f, const char *why);

#endif
