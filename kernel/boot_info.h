/* How the kernel was booted, filled once by whichever entry path ran
 * (arch/x86/native/pvh.c, arch/x86/native/multiboot2.c, xen/pv/start.c,
 * xen/pvh/start.c). Nothing after kernel_main() looks at the loader's own
 * structures again. */
#ifndef KERNEL_BOOT_INFO_H
#define KERNEL_BOOT_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/percpu.h"
#include "mm/frame_alloc.h"

enum boot_method {
    BOOT_NATIVE_PVH,
    BOOT_NATIVE_MULTIBOOT2,
    BOOT_XEN_PV,
    BOOT_XEN_PVH,
    BOOT_KVM_PVH,
};

#define BOOT_MAX_RANGES 64
#define BOOT_CMDLINE_MAX 1024

/* What every entry path fills before calling kernel_main(), having
 * installed its platform's ops tables (arch/x86/pvh.c says how the PVH
 * door tells QEMU from Xen). */
struct boot_info {
    enum boot_method method;
    char cmdline[BOOT_CMDLINE_MAX];
    bool cmdline_truncated;
    size_t nr_ram; /* usable RAM from the loader's map */
    struct mem_range ram[BOOT_MAX_RANGES];
    size_t nr_ram_dropped; /* map entries beyond BOOT_MAX_RANGES */
    size_t nr_reserved;    /* loader data the allocator must not hand out */
    struct mem_range reserved[8];
    size_t nr_reserved_dropped; /* must stay 0: mm_init() checks */
    /* Pages outside RAM that the kernel map maps, writable and never
     * executable: Xen's console and xenstore rings under PVH. */
    size_t nr_shared;
    struct mem_range shared[2];
    size_t nr_shared_dropped; /* must stay 0: mm_init() checks */
    /* The CPUs ACPI lists (native doors only): nr_cpus 0 and no error
     * means nobody looked, as under Xen; an error means one CPU. */
    unsigned nr_cpus;
    uint8_t cpu_apic_id[MAX_CPUS]; /* in MADT order */
    uint64_t lapic_base;
    unsigned nr_cpus_ignored; /* enabled CPUs beyond MAX_CPUS or not addressable */
    const char *cpus_error;
    /* The ACPI PM timer from the FADT (native doors only), the time
     * self-test's reference: port 0 when there is none, and then
     * pm_timer_error says why (NULL: nobody looked, as under Xen). */
    uint16_t pm_timer_port;
    uint8_t pm_timer_bits; /* 24 or 32 */
    const char *pm_timer_error;
};

extern struct boot_info boot_info;

const char *boot_method_name(enum boot_method m);

void boot_info_add_ram(struct boot_info *bi, uint64_t base, uint64_t len);
void boot_info_add_reserved(struct boot_info *bi, uint64_t base, uint64_t len);
void boot_info_add_shared_page(struct boot_info *bi, uint64_t pa);
void boot_info_set_cmdline(struct boot_info *bi, const char *s, size_t max);

__attribute__((noreturn)) void kernel_main(void);

#endif
