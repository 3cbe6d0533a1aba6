/* The platform ops: what the kernel needs from the machine it finds itself
 * on, beyond the CPU.  The native table lives in arch/x86/native_platform.c,
 * Xen's in xen/. Each entry path installs one before calling kernel_main(). */
#ifndef PV_PLATFORM_OPS_H
#define PV_PLATFORM_OPS_H

#include <stddef.h>
#include <stdint.h>

struct boot_info;
struct pv_backend;

struct platform_ops {
    const char *name;                                    /* "native" or "xen" */
    void (*console_write)(const char *s, size_t len);    /* must work from a trap */
    __attribute__((noreturn)) void (*exit)(int status);  /* 0 = clean, ends the VM */
    void (*kernel_map_init)(const struct boot_info *bi); /* final W^X page tables */
    void *(*maddr_to_virt)(uint64_t maddr);              /* where a page table can be read */
    uint64_t (*phys_to_maddr)(uint64_t pa);              /* what an entry holds for frame pa */
    const struct pv_backend *(*patch_backend)(void);     /* what pv call sites become */
    void (*text_poke)(void *addr, const void *bytes, size_t len); /* write read-only text */
};

extern const struct platform_ops *platform_ops;

#endif
