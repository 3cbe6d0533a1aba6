#include "arch/x86/descriptors.h"

#include <stddef.h>

#include "arch/x86/trap_frame.h"
#include "kernel/percpu.h"
#include "mm/kernel_map.h"

struct tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

struct idt_gate {
    uint16_t offset_low;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_high;
    uint32_t reserved;
} __attribute__((packed));

struct descriptor_table_pointer {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

#define GATE_INTERRUPT_DPL0 0x8e /* present, 64-bit interrupt gate: IF cleared on entry */
#define TSS_AVAILABLE 0x89

/* Each CPU's #DF stack, above a guard page kernel_map leaves unmapped. */
struct double_fault_slot {
    uint8_t guard[DOUBLE_FAULT_GUARD_SIZE];
    uint8_t stack[DOUBLE_FAULT_STACK_SIZE];
};
_Static_assert(sizeof(struct double_fault_slot) % 4096 == 0, "guards must stay page-aligned");
static struct double_fault_slot double_fault_stacks[MAX_CPUS]
    __attribute__((aligned(4096), section(".bss.page_aligned")));
GUARD_PAGES(double_fault_stacks, double_fault_stacks[0].guard, sizeof(struct double_fault_slot),
            MAX_CPUS);

/* One GDT and TSS per CPU: ltr marks a TSS busy, so no two CPUs can load
 * the same one, and each needs its own #DF stack in it. The IDT is shared. */
#define GDT_ENTRIES 5
static const uint64_t gdt_template[GDT_ENTRIES] = {
    0,
    0x00af9a000000ffff, /* KERNEL_CS: 64-bit code, ring 0 */
    0x00cf92000000ffff, /* KERNEL_DS */
    0,
    0, /* TSS_SELECTOR: a 16-byte system descriptor, filled at run time */
};
static uint64_t gdt[MAX_CPUS][GDT_ENTRIES];
static struct tss tss[MAX_CPUS];
static struct idt_gate idt[256];

static void gdt_set_tss(uint64_t *g, const struct tss *t)
{
    uint64_t base = (uint64_t)t;
    uint64_t limit = sizeof(*t) - 1;

    g[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) | ((uint64_t)TSS_AVAILABLE << 40) |
           (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
    g[4] = base >> 32;
}

static void idt_set_gate(unsigned vector, uint64_t handler, unsigned ist)
{
    idt[vector] = (struct idt_gate){
        .offset_low = handler & 0xffff,
        .selector = KERNEL_CS,
        .ist = ist,
        .type_attr = GATE_INTERRUPT_DPL0,
        .offset_mid = (handler >> 16) & 0xffff,
        .offset_high = handler >> 32,
    };
}

static void load_gdt_and_segments(const uint64_t *g)
{
    struct descriptor_table_pointer p = {GDT_ENTRIES * sizeof(*g) - 1, (uint64_t)g};

    __asm__ volatile("lgdt %0\n\t"
                     "pushq %1\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rax\n\t"
                     "lretq\n" /* reload CS with our own selector */
                     "1:\n\t"
                     "movw %w2, %%ds\n\t"
                     "movw %w2, %%es\n\t"
                     "movw %w2, %%ss\n\t"
                     "ltr %w3"
                     :
                     : "m"(p), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SELECTOR)
                     : "rax", "memory");
}

/* The calling CPU's GDT, with its TSS and #DF stack, and the IDT. */
static void load_cpu_tables(unsigned cpu)
{
    struct descriptor_table_pointer idtr = {sizeof(idt) - 1, (uint64_t)idt};
    struct tss *t = &tss[cpu];

    t->ist[IST_DOUBLE_FAULT - 1] =
        (uint64_t)(double_fault_stacks[cpu].stack + DOUBLE_FAULT_STACK_SIZE);
    t->iomap_base = sizeof(*t); /* no I/O bitmap */
    for (unsigned i = 0; i < GDT_ENTRIES; i++)
        gdt[cpu][i] = gdt_template[i];
    gdt_set_tss(gdt[cpu], t);
    load_gdt_and_segments(gdt[cpu]);
    __asm__ volatile("lidt %0" : : "m"(idtr));
}

void descriptors_init_native(void)
{
    for (unsigned v = 0; v < 256; v++)
        idt_set_gate(v, trap_stubs[v], v == TRAP_DF ? IST_DOUBLE_FAULT : 0);
    load_cpu_tables(0);
}

void descriptors_init_secondary(unsigned cpu)
{
    load_cpu_tables(cpu);
}
