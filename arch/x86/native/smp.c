/* Starting the other CPUs natively. ACPI's MADT lists them by local APIC
 * id (kernel/acpi_parse.c); each is started with INIT and two startup
 * IPIs into a real-mode trampoline (boot/ap_trampoline.asm), copied to a
 * page below 1 MiB, which climbs to long mode on the kernel's own page
 * tables and calls native_ap_main() on the stack kernel/smp.c gave it.
 *
 * The trampoline page stays read-write and never executable, like all low
 * RAM in the kernel map, except while one CPU climbs through it: the code
 * and that CPU's parameters are written first, then the page becomes
 * read-only and executable, and once the CPU has left it, writable and
 * non-executable again. So no page is ever writable and executable. */
#include "arch/x86/cpu.h"
#include "arch/x86/descriptors.h"
#include "arch/x86/lapic.h"
#include "arch/x86/native/backend.h"
#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "kernel/percpu.h"
#include "kernel/printf.h"
#include "kernel/smp.h"
#include "kernel/string.h"
#include "kernel/time.h"
#include "mm/pt_walk.h"
#include "pv/mmu.h"

#define CLIMB_TIMEOUT_NS (1000 * NSEC_PER_MSEC)

/* Field for field ap_params in boot/ap_trampoline.asm. */
struct ap_params {
    uint64_t cr0, cr3, cr4, efer;
    uint64_t stack_top;
    uint64_t entry;
    uint64_t cpu;
};

/* boot/ap_trampoline.asm: the code to copy, and where it goes (an
 * absolute symbol, so the address is written down once). */
extern char ap_trampoline_start[], ap_trampoline_params[], ap_trampoline_end[];
extern char ap_trampoline_pa[];
#define TRAMPOLINE_PA ((uint64_t)ap_trampoline_pa)

static unsigned nr_cpus = 1;
static uint8_t cpu_apic_ids[MAX_CPUS]; /* cpu number -> local APIC id */
static unsigned ap_climbed;            /* the cpu number of the last CPU off the trampoline */
static pte_t *trampoline_pte;          /* its page's entry in the kernel map */

/* The boot CPU is whichever CPU the MADT lists under this CPU's APIC id;
 * the others become cpus 1.. in table order. */
unsigned native_cpus_possible(void)
{
    uint8_t self = lapic_id();
    bool listed = false;

    if (boot_info.cpus_error) {
        kprintf("smp: ACPI: %s; running on one CPU\n", boot_info.cpus_error);
        return 1;
    }
    cpu_apic_ids[0] = self;
    nr_cpus = 1;
    for (unsigned i = 0; i < boot_info.nr_cpus; i++) {
        if (boot_info.cpu_apic_id[i] == self)
            listed = true;
        else if (nr_cpus < MAX_CPUS)
            cpu_apic_ids[nr_cpus++] = boot_info.cpu_apic_id[i];
    }
    if (boot_info.nr_cpus && !listed) {
        kprintf("smp: ACPI does not list this CPU (APIC id %u); running on one CPU\n", self);
        nr_cpus = 1;
    }
    if (boot_info.nr_cpus_ignored)
        kprintf("smp: ACPI: %u more CPUs left out (over %d, or no xAPIC id)\n",
                boot_info.nr_cpus_ignored, MAX_CPUS);
    return nr_cpus;
}

static bool range_has_page(const struct mem_range *r, uint64_t pa)
{
    return r->base <= pa && pa + PAGE_SIZE <= r->base + r->len;
}

static bool range_meets_page(const struct mem_range *r, uint64_t pa)
{
    return pa < r->base + r->len && r->base < pa + PAGE_SIZE;
}

/* Why the trampoline cannot be used, or NULL. mm_init() keeps the frame
 * allocator out of the first MiB, so the page is free if the memory map
 * calls it RAM and the loader left nothing there. */
static const char *trampoline_check(void)
{
    bool ram = false;

    if ((size_t)(ap_trampoline_end - ap_trampoline_params) != sizeof(struct ap_params))
        panic("smp: boot/ap_trampoline.asm and struct ap_params disagree");
    for (size_t i = 0; i < boot_info.nr_ram; i++)
        ram |= range_has_page(&boot_info.ram[i], TRAMPOLINE_PA);
    if (!ram)
        return "the trampoline page is not RAM";
    for (size_t i = 0; i < boot_info.nr_reserved; i++) {
        if (range_meets_page(&boot_info.reserved[i], TRAMPOLINE_PA))
            return "the loader left data in the trampoline page";
    }
    if (read_cr3() >> 32)
        return "the page tables are above 4 GiB, out of the trampoline's 32-bit reach";
    trampoline_pte = pt_l1_entry(read_cr3(), TRAMPOLINE_PA, PT_NO_ALLOC);
    if (!trampoline_pte || !pte_writable(*trampoline_pte) || pte_executable(*trampoline_pte))
        return "the kernel map does not map the trampoline page writable and NX";
    return NULL;
}

static void trampoline_set_pte(pte_t val)
{
    set_pte(trampoline_pte, val);
    flush_tlb_one(TRAMPOLINE_PA);
}

__attribute__((noreturn)) static void native_ap_main(unsigned cpu);

/* The code, and cpu's parameters: everything as this CPU has it. */
static void trampoline_fill(unsigned cpu, uint64_t stack_top)
{
    uint8_t *page = phys_to_virt(TRAMPOLINE_PA);
    struct ap_params p = {
        .cr0 = read_cr0(),
        .cr3 = read_cr3(),
        .cr4 = read_cr4(),
        .efer = rdmsr(MSR_EFER) & ~EFER_LMA,
        .stack_top = stack_top,
        .entry = (uint64_t)native_ap_main,
        .cpu = cpu,
    };

    memcpy(page, ap_trampoline_start, (size_t)(ap_trampoline_end - ap_trampoline_start));
    memcpy(page + (ap_trampoline_params - ap_trampoline_start), &p, sizeof(p));
}

static void delay_ns(uint64_t ns)
{
    for (uint64_t end = time_now_ns() + ns; time_now_ns() < end;)
        __builtin_ia32_pause();
}

/* Intel SDM vol. 3, 8.4.4.1: INIT, 10 ms, startup IPI, 200 us, startup
 * IPI; a CPU already running ignores the second one. */
static const char *send_init_sipi_sipi(uint8_t apic)
{
    uint32_t sipi = LAPIC_ICR_STARTUP | LAPIC_ICR_ASSERT | (uint32_t)(TRAMPOLINE_PA >> 12);

    if (!lapic_send_ipi(apic, LAPIC_ICR_INIT | LAPIC_ICR_ASSERT))
        return "the ICR never went idle after INIT";
    delay_ns(10 * NSEC_PER_MSEC);
    for (int i = 0; i < 2; i++) {
        if (!lapic_send_ipi(apic, sipi))
            return "the ICR never went idle after a startup IPI";
        delay_ns(200 * NSEC_PER_USEC);
    }
    return NULL;
}

static bool wait_climbed(unsigned cpu)
{
    uint64_t end = time_now_ns() + CLIMB_TIMEOUT_NS;

    while (__atomic_load_n(&ap_climbed, __ATOMIC_ACQUIRE) != cpu) {
        if (time_now_ns() > end)
            return false;
        __builtin_ia32_pause();
    }
    return true;
}

/* Starts cpu through the trampoline, executable only meanwhile. A CPU
 * that does not come off it gets INIT again, which parks it waiting for a
 * startup IPI, before the page stops being executable under it. */
static const char *climb(unsigned cpu, uint64_t stack_top)
{
    pte_t rw = *trampoline_pte;
    const char *why;

    trampoline_fill(cpu, stack_top);
    __atomic_store_n(&ap_climbed, 0, __ATOMIC_RELAXED);
    trampoline_set_pte(TRAMPOLINE_PA | PTE_P); /* read-only, executable */
    why = send_init_sipi_sipi(cpu_apic_ids[cpu]);
    if (!why && !wait_climbed(cpu))
        why = "it did not leave the trampoline within a second";
    if (why)
        lapic_send_ipi(cpu_apic_ids[cpu], LAPIC_ICR_INIT | LAPIC_ICR_ASSERT);
    trampoline_set_pte(rw);
    return why;
}

const char *native_start_cpu(unsigned cpu, uint64_t stack_top)
{
    static char how[MAX_CPUS][32];
    const char *why;

    if (cpu >= nr_cpus) {
        kprintf("smp: cpu %u: ACPI lists no such CPU\n", cpu);
        return NULL;
    }
    why = trampoline_check();
    if (!why)
        why = climb(cpu, stack_top);
    if (why) {
        kprintf("smp: cpu %u (APIC id %u): %s\n", cpu, cpu_apic_ids[cpu], why);
        return NULL;
    }
    ksnprintf(how[cpu], sizeof(how[cpu]), "APIC id %u, INIT-SIPI-SIPI", cpu_apic_ids[cpu]);
    return how[cpu];
}

/* Where the trampoline lands, on cpu's idle stack, interrupts disabled.
 * Until the IDT is loaded a fault here is a triple fault. */
__attribute__((noreturn)) static void native_ap_main(unsigned cpu)
{
    percpu_init(cpu);
    descriptors_init_secondary(cpu); /* off the trampoline's GDT */
    invlpg(TRAMPOLINE_PA);           /* no stale executable entry once it is NX */
    __atomic_store_n(&ap_climbed, cpu, __ATOMIC_RELEASE);
    lapic_init();
    smp_cpu_main(cpu);
}

/* A CPU started another way (a Xen PVH vCPU) names its APIC, for the
 * IPIs that go through the LAPIC. */
void native_cpu_apic_id_set(unsigned cpu, uint8_t apic_id)
{
    cpu_apic_ids[cpu] = apic_id;
}

/* SDM 11.6.1: the level flag must be 1 for every mode but INIT de-assert. */
void native_send_ipi_vector(unsigned cpu, uint8_t vector)
{
    if (!lapic_send_ipi(cpu_apic_ids[cpu], LAPIC_ICR_FIXED | LAPIC_ICR_ASSERT | vector))
        panic("smp: the ICR never went idle sending an IPI to cpu %u", cpu);
}

void native_ipi_each(unsigned cpus, uint8_t vector)
{
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpus & (1u << cpu))
            native_send_ipi_vector(cpu, vector);
}

void (*native_ipi_many)(unsigned cpus, uint8_t vector) = native_ipi_each;

uint8_t native_cpu_apic_id(unsigned cpu)
{
    return cpu_apic_ids[cpu];
}

void native_send_ipi(unsigned cpu)
{
    native_ipi_many(1u << cpu, LAPIC_IPI_VECTOR);
}
