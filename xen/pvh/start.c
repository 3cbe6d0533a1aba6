/* The Xen PVH entry path, in C: arch/x86/pvh.c saw Xen's CPUID leaves at
 * the PVH door. Xen started us as QEMU would (boot/pvh.asm climbed to long
 * mode on our boot tables), with no hypercall page, no shared_info, and
 * its console and xenstore rings named by HVM parameters instead of a
 * start_info page. */
#include "arch/x86/boot_map.h"
#include "arch/x86/cpu.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/pvh_parse.h"
#include "mm/pgtable.h"
#include "xen/cpuid_base.h"
#include "xen/hypercall.h"
#include "xen/pvh/backend.h"

#define RET 0xc3

/* The BIOS's E820 entry (ACPI's address range descriptor, packed to 20
 * bytes): what XENMEM_memory_map writes. */
struct e820_entry {
    uint64_t addr, size;
    uint32_t type;
} __attribute__((packed));
#define E820_RAM 1

/* Xen ABI: CPUID leaf base+2's EBX names the MSR to which a guest writes
 * the guest-physical address of a page (ours: VA == PA); Xen fills it with
 * one 32-byte stub per hypercall, vmmcall or vmcall as the CPU has. Until
 * then nothing can be said: a page left unfilled ends at a trap. */
static void hypercall_page_init(uint32_t base)
{
    wrmsr(cpuid(base + 2, 0).ebx, (uint64_t)hypercall_page);
    if (!xen_hypercall_page_filled())
        __builtin_trap();
}

extern const struct xen_hypercall_site __xen_hypercall_sites_start[], __xen_hypercall_sites_end[];

/* What Xen wrote into the page, shown at boot: under PVH every
 * HYPERVISOR_<op>() stays a call into it (PV rewrites each site to an
 * inline syscall, xen/pv/hypercall_sites.c). xen_version's stub, up to
 * its ret: mov $nr, %eax, then vmmcall (or vmcall), then ret. */
static void announce_hypercall_page(uint32_t base)
{
    const uint8_t *stub = (const uint8_t *)hypercall_page + __HYPERVISOR_xen_version * 32;
    unsigned len = 6; /* mov $imm32, %eax (5 bytes), then at least one more */

    while (len < 32 && stub[len - 1] != RET)
        len++;
    kprintf("xen: hypercalls through the page Xen filled (MSR 0x%x): %u sites call its stubs; "
            "xen_version's:",
            cpuid(base + 2, 0).ebx,
            (unsigned)(__xen_hypercall_sites_end - __xen_hypercall_sites_start));
    for (unsigned i = 0; i < len; i++)
        kprintf(" %02x", stub[i]);
    kprintf("\n");
}

/* A parameter Xen keeps for this domain; a domU's console cannot work
 * without them, so a failure traps (and Xen reports it). */
static uint64_t hvm_param(uint32_t index)
{
    struct xen_hvm_param p = {.domid = DOMID_SELF, .index = index};

    if (HYPERVISOR_hvm_op(HVMOP_get_param, &p) != 0)
        __builtin_trap();
    return p.value;
}

/* Xen ABI: a PVH domU's console and xenstore rings are pages of guest
 * memory that HVM parameters name by frame, at boot and after a resume. */
void xen_pvh_read_rings(void)
{
    xen_domain.console = (void *)(hvm_param(HVM_PARAM_CONSOLE_PFN) << 12);
    xen_domain.console_port = (evtchn_port_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN);
    xen_domain.store = (void *)(hvm_param(HVM_PARAM_STORE_PFN) << 12);
    xen_domain.store_port = (evtchn_port_t)hvm_param(HVM_PARAM_STORE_EVTCHN);
}

/* Whether we are dom0 picks the console, so it must be known, not guessed:
 * the start info's flag, or without a start info Xen's own word, domain 0
 * being the one Xen built at boot. Without either no console is sure to
 * be heard; the trap is, as Xen reports it. A PVH dom0 has no console or
 * xenstore ring. */
static void read_domain(const struct pvh_start *si, uint32_t base)
{
    unsigned domid;

    if (si->found)
        xen_domain.dom0 = si->flags & SIF_INITDOMAIN;
    else if (xen_cpuid_domid(native_cpuid, base, &domid))
        xen_domain.dom0 = domid == 0;
    else
        __builtin_trap();
    if (xen_domain.dom0)
        xen_domain.store_problem = "dom0 has no xenstore ring at boot";
    else
        xen_pvh_read_rings();
}

static bool in_ram(const struct boot_info *bi, uint64_t pa)
{
    for (size_t i = 0; i < bi->nr_ram; i++)
        if (pa >= bi->ram[i].base && pa - bi->ram[i].base < bi->ram[i].len)
            return true;
    return false;
}

/* A ring page: the frame allocator must not hand it out, and the kernel
 * map must map it, which it does for RAM already. */
static void keep_ring(struct boot_info *bi, const void *ring)
{
    uint64_t pa = (uint64_t)ring;

    if (!ring)
        return;
    if (pa >= BOOT_MAP_END)
        panic("xen: a ring page at 0x%lx lies above the low 4 GiB", pa);
    if (in_ram(bi, pa))
        boot_info_add_reserved(bi, pa, PAGE_SIZE);
    else
        boot_info_add_shared_page(bi, pa);
}

/* Xen ABI: a PVH dom0's start info is version 0, without a memory map;
 * XENMEM_memory_map gives the domain's, E820 style. */
static void memory_map_from_xen(struct boot_info *bi)
{
    static struct e820_entry map[BOOT_MAX_RANGES];
    struct xen_memory_map mm = {.nr_entries = BOOT_MAX_RANGES};

    set_xen_guest_handle(mm.buffer, map);
    xen_must(HYPERVISOR_memory_op(XENMEM_memory_map, &mm), "XENMEM_memory_map");
    for (unsigned i = 0; i < mm.nr_entries && i < BOOT_MAX_RANGES; i++)
        if (map[i].type == E820_RAM)
            boot_info_add_ram(bi, map[i].addr, map[i].size);
    if (bi->nr_ram == 0)
        panic("xen: XENMEM_memory_map gave %u entries and no RAM", mm.nr_entries);
}

/* The id Xen's CPUID leaves give, where they give one; else xenstore is asked. */
static unsigned cpuid_domid(uint32_t base)
{
    unsigned domid;

    if (xen_domain.dom0)
        return 0;
    return xen_cpuid_domid(native_cpuid, base, &domid) ? domid : XEN_DOMID_UNKNOWN;
}

void xen_pvh_start(uint32_t start_info_pa, uint32_t cpuid_base)
{
    const struct boot_mem low = boot_mem_low();
    struct pvh_start si;
    const char *err;
    char version[48];

    hypercall_page_init(cpuid_base);
    /* Read before the console is chosen, which depends on dom0's flag;
     * an error is reported once it works. */
    err = pvh_parse(&low, start_info_pa, true, &boot_info, &si);
    read_domain(&si, cpuid_base);
    xen_pvh_install(); /* console first, then events and every ops table */
    boot_info.method = BOOT_XEN_PVH;
    if (err)
        panic("xen: PVH start info at 0x%x: %s", start_info_pa, err);
    if (si.version == 0)
        memory_map_from_xen(&boot_info);
    keep_ring(&boot_info, xen_domain.console);
    keep_ring(&boot_info, xen_domain.store);
    xen_version_string(version, sizeof(version));
    kprintf("xen: %s, PVH start info version %u, flags 0x%x, CPUID leaves at 0x%x\n", version,
            si.version, si.flags, cpuid_base);
    xen_announce_role(cpuid_domid(cpuid_base));
    announce_hypercall_page(cpuid_base);
    kernel_main();
}
