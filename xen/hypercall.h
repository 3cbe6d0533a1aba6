/* Typed hypercalls, one HYPERVISOR_<op>() per hypercall the kernel uses.
 *
 * Xen ABI (x86-64): a hypercall is `call hypercall_page + nr * 32`, the
 * page Xen fills in, whose stub does the hypercall proper: for a PV guest
 * (the HYPERCALL_PAGE ELF note asks for the page) `syscall` from the guest
 * kernel with its number in rax, for a PVH guest (the page's address
 * written to Xen's MSR) `vmmcall` or `vmcall`. Arguments in rdi rsi rdx
 * r10 r8, result in rax, and `syscall` clobbers rcx and r11. Xen may also change the argument registers, so each is an
 * output too. HYPERVISOR_iret is not here: it never returns and takes its
 * arguments on the stack, so the entry stubs jump to it (xen_iret_entry). */
#ifndef XEN_HYPERCALL_H
#define XEN_HYPERCALL_H

#include <stdbool.h>

#include "xen/xen_public.h"

/* 4 KiB, filled by Xen at domain build (xen/hypercall_page.asm). */
extern char hypercall_page[4096];
#define HYPERCALL_PAGE_UNFILLED 0xcc /* the int3 fill of xen/hypercall_page.asm */

/* Whether Xen filled the page: without it nothing can be said, not even a panic. */
static inline bool xen_hypercall_page_filled(void)
{
    return (unsigned char)hypercall_page[0] != HYPERCALL_PAGE_UNFILLED;
}

/* Tour 92: Every hypercall is a site.
 * Assembled, a hypercall is a 2-byte NOP and `call hypercall_page +
 * nr * 32`, Xen's stub for hypercall nr, and leaves a descriptor in
 * .xen_hypercall_sites: the site's address, the hypercall's name and
 * number. With xen.hypercall=inline, the default, xen_hypercall_setup()
 * (xen/pv/hypercall_sites.c) rewrites each site at boot as `mov $nr, %eax;
 * syscall`, what the stub would run, without the call, the stub's
 * push/pop of rcx and r11 (which the site declares clobbered anyway) and
 * the return: what Linux does since XSA-466. */
struct xen_hypercall_site {
    uint64_t addr;    /* the site's first byte; XEN_HYPERCALL_SITE_LEN of them */
    const char *name; /* "xen_version" */
    uint32_t nr;      /* __HYPERVISOR_xen_version */
    uint32_t reserved;
};

_Static_assert(sizeof(struct xen_hypercall_site) == 24, "linker.ld checks 24-byte descriptors");

#define XEN_HYPERCALL_SITE_LEN 7 /* either form: NOP (2), call rel32 (5); mov (5), syscall (2) */

#define HYPERCALL_CALL(name)                                                                       \
    "771:\n\t"                                                                                     \
    ".nops 2\n\t"                                                                                  \
    "call hypercall_page + %c[nr] * 32\n\t"                                                        \
    ".pushsection .xen_hypercall_sites, \"a\"\n\t"                                                 \
    ".balign 8\n\t"                                                                                \
    ".quad 771b, 772f\n\t"                                                                         \
    ".long %c[nr], 0\n\t"                                                                          \
    ".popsection\n\t"                                                                              \
    ".pushsection .rodata.str1.1, \"aMS\", @progbits, 1\n"                                         \
    "772:\n\t"                                                                                     \
    ".asciz \"" #name "\"\n\t"                                                                     \
    ".popsection\n"
#define HYPERCALL_OFFSET(name) [nr] "i"(__HYPERVISOR_##name)

#define _hypercall1(name, a1)                                                                      \
    ({                                                                                             \
        long res_, di_ = (long)(a1);                                                               \
        __asm__ volatile(HYPERCALL_CALL(name)                                                      \
                         : "=a"(res_), "+D"(di_)                                                   \
                         : HYPERCALL_OFFSET(name)                                                  \
                         : "rcx", "r11", "memory");                                                \
        res_;                                                                                      \
    })

#define _hypercall2(name, a1, a2)                                                                  \
    ({                                                                                             \
        long res_, di_ = (long)(a1), si_ = (long)(a2);                                             \
        __asm__ volatile(HYPERCALL_CALL(name)                                                      \
                         : "=a"(res_), "+D"(di_), "+S"(si_)                                        \
                         : HYPERCALL_OFFSET(name)                                                  \
                         : "rcx", "r11", "memory");                                                \
        res_;                                                                                      \
    })

#define _hypercall3(name, a1, a2, a3)                                                              \
    ({                                                                                             \
        long res_, di_ = (long)(a1), si_ = (long)(a2), dx_ = (long)(a3);                           \
        __asm__ volatile(HYPERCALL_CALL(name)                                                      \
                         : "=a"(res_), "+D"(di_), "+S"(si_), "+d"(dx_)                             \
                         : HYPERCALL_OFFSET(name)                                                  \
                         : "rcx", "r11", "memory");                                                \
        res_;                                                                                      \
    })

/* The arguments are evaluated before r10 and r8 are bound, so a function
 * call in an argument cannot clobber them. */
#define _hypercall4(name, a1, a2, a3, a4)                                                          \
    ({                                                                                             \
        long res_, di_ = (long)(a1), si_ = (long)(a2), dx_ = (long)(a3), v4_ = (long)(a4);         \
        register long r10_ __asm__("r10") = v4_;                                                   \
        __asm__ volatile(HYPERCALL_CALL(name)                                                      \
                         : "=a"(res_), "+D"(di_), "+S"(si_), "+d"(dx_), "+r"(r10_)                 \
                         : HYPERCALL_OFFSET(name)                                                  \
                         : "rcx", "r11", "memory");                                                \
        res_;                                                                                      \
    })

/* A hypercall the kernel cannot go on without: panics naming the op and
 * Xen's error number (a negated errno from <xen/errno.h>). */
void xen_must(long rc, const char *op);

static inline long HYPERVISOR_console_io(int cmd, int count, const char *buf)
{
    return _hypercall3(console_io, cmd, count, buf);
}

static inline long HYPERVISOR_sched_op(int cmd, void *arg)
{
    return _hypercall2(sched_op, cmd, arg);
}

/* Xen ABI: SHUTDOWN_suspend returns 0 in the domain the toolstack built
 * from the saved one, or 1 where the suspend was cancelled. A PV guest
 * passes its start_info's machine frame in the third argument register,
 * where the toolstack looks for it in the saved vCPU state; PVH passes 0. */
static inline long HYPERVISOR_suspend(uint64_t start_info_mfn)
{
    struct sched_shutdown shutdown = {.reason = SHUTDOWN_suspend};

    return _hypercall3(sched_op, SCHEDOP_shutdown, &shutdown, start_info_mfn);
}

static inline long HYPERVISOR_event_channel_op(int cmd, void *arg)
{
    return _hypercall2(event_channel_op, cmd, arg);
}

static inline long HYPERVISOR_grant_table_op(unsigned cmd, void *arg, unsigned count)
{
    return _hypercall3(grant_table_op, cmd, arg, count);
}

static inline long HYPERVISOR_vcpu_op(int cmd, unsigned vcpu, void *arg)
{
    return _hypercall3(vcpu_op, cmd, vcpu, arg);
}

static inline long HYPERVISOR_set_segment_base(unsigned which, uint64_t base)
{
    return _hypercall2(set_segment_base, which, base);
}

static inline long HYPERVISOR_xen_version(int cmd, void *arg)
{
    return _hypercall2(xen_version, cmd, arg);
}

/* traps[] ends with an entry whose address is 0. */
static inline long HYPERVISOR_set_trap_table(const struct trap_info *traps)
{
    return _hypercall1(set_trap_table, traps);
}

static inline long HYPERVISOR_callback_op(int cmd, const void *arg)
{
    return _hypercall2(callback_op, cmd, arg);
}

/* Rewrites the leaf entry mapping va; flags are UVMF_*. */
static inline long HYPERVISOR_update_va_mapping(uint64_t va, uint64_t pte, uint64_t flags)
{
    return _hypercall3(update_va_mapping, va, pte, flags);
}

static inline long HYPERVISOR_mmu_update(const struct mmu_update *reqs, unsigned count,
                                         unsigned *done, domid_t domid)
{
    return _hypercall4(mmu_update, reqs, count, done, domid);
}

static inline long HYPERVISOR_mmuext_op(const struct mmuext_op *ops, unsigned count, unsigned *done,
                                        domid_t domid)
{
    return _hypercall4(mmuext_op, ops, count, done, domid);
}

static inline long HYPERVISOR_physdev_op(int cmd, void *arg)
{
    return _hypercall2(physdev_op, cmd, arg);
}

static inline long HYPERVISOR_memory_op(unsigned cmd, void *arg)
{
    return _hypercall2(memory_op, cmd, arg);
}

/* Turns a VMASST_TYPE_* assist on or off (VMASST_CMD_*). */
static inline long HYPERVISOR_vm_assist(unsigned cmd, unsigned type)
{
    return _hypercall2(vm_assist, cmd, type);
}

/* HVM and PVH guests only: HVMOP_* on their own domain's parameters. */
static inline long HYPERVISOR_hvm_op(unsigned cmd, void *arg)
{
    return _hypercall2(hvm_op, cmd, arg);
}

static inline long HYPERVISOR_multicall(struct multicall_entry *calls, unsigned count)
{
    return _hypercall2(multicall, calls, count);
}

#endif
