/* Thin wrappers over x86 instructions for code in arch/x86/ only.
 * Everything outside arch/ and xen/ reaches the CPU through the pv ops. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include <stdbool.h>
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t read_cr0(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr0, %0" : "=r"(v));
    return v;
}

static inline void write_cr0(uint64_t v)
{
    __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
    uint64_t v;
    __asm__ volatile("mov %%cr4, %0" : "=r"(v));
    return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

struct cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r;
    __asm__ volatile("cpuid"
                     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* lfence keeps rdtsc from running ahead of the loads before it (a pvclock
 * record's version, say). */
static inline uint64_t rdtsc_ordered(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

/* The privilege level the CPU runs this code at: CS's low two bits. */
static inline unsigned current_ring(void)
{
    uint16_t cs;
    __asm__ volatile("mov %%cs, %0" : "=r"(cs));
    return cs & 3;
}

/* A bare cli, not a call site: what an unmodified kernel would run. */
static inline void raw_cli(void)
{
    __asm__ volatile("cli" ::: "memory");
}

static inline void invlpg(uint64_t va)
{
    __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void cpu_halt_forever(void)
{
    for (;;)
        __asm__ volatile("cli; hlt");
}

#define MSR_EFER 0xc0000080
#define MSR_GS_BASE 0xc0000101 /* the base %gs: operands use in 64-bit mode */
#define EFER_LMA (1ULL << 10)  /* long mode active: the CPU's to set */
#define EFER_NXE (1ULL << 11)
#define CR0_WP (1ULL << 16)

/* CPUID 0x80000001 EDX bit 20. */
static inline bool cpu_has_nx(void)
{
    return (cpuid(0x80000001, 0).edx >> 20) & 1;
}

#endif
