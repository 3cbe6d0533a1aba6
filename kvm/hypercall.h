/* KVM's hypercalls, shared by PV send-IPI and the pv lock's kick. */
#ifndef KVM_HYPERCALL_H
#define KVM_HYPERCALL_H

#include <stdbool.h>

extern bool kvm_vmmcall; /* AMD's hypercall instruction, else Intel's vmcall */

/* KVM ABI (Documentation/virt/kvm/x86/hypercalls.rst): the number in RAX,
 * arguments in RBX, RCX, RDX, RSI, the result in RAX; vmmcall on AMD,
 * vmcall on Intel (KVM emulates the other one, at a cost). */
static inline long kvm_hypercall4(unsigned long nr, unsigned long a0, unsigned long a1,
                                  unsigned long a2, unsigned long a3)
{
    long ret;

    if (kvm_vmmcall)
        __asm__ volatile("vmmcall"
                         : "=a"(ret)
                         : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
                         : "memory");
    else
        __asm__ volatile("vmcall"
                         : "=a"(ret)
                         : "a"(nr), "b"(a0), "c"(a1), "d"(a2), "S"(a3)
                         : "memory");
    return ret;
}

#endif
