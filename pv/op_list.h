/* The paravirt op registry: every op of every ops table, listed once.
 * docs/pv-ops.md, "Adding an op", walks through adding one. */
#ifndef PV_OP_LIST_H
#define PV_OP_LIST_H

/* clang-format off */

/* Tour 55: The registry: one line per op.
 * Everything about an op is made from its line here: enum pv_op, the op
 * names, the site lengths and clobbers, the members of each table
 * (pv/ops.h), each backend's prototypes, thunks and table initialiser, the
 * lookup of what each slot points at now, and the op's native
 * instructions: what a PARAVIRT=n wrapper holds, what an unpatched native
 * call runs, and the native patch template (arch/x86/native/insns.c).
 * A site op, one with a patchable call site (pv/call.h), is defined by
 *   #define PV_OP_DEF_<op>  return type, (parameters), site length, clobbers, "native"
 * and named in its table's PV_SITES_<table> list. Its arguments travel in
 * rdi and rsi and its result in rax (the callee-save convention,
 * pv/site.h); clobbers is RAX when it returns a value, else NONE; the
 * site length is the longest replacement any backend writes, at least the
 * 6-byte indirect call; "native" is extended-asm text, so %% for %. An op
 * called through its table from C, with no site, is one line of its
 * table's PV_CALLS_<table> list: X(arg, table, op, return type, (parameters)).
 *
 * Interrupt flag. "flags" is an RFLAGS image: only IF (bit 9) matters. */
#define PV_OP_DEF_irq_disable   void, (void), 9, NONE, "cli" /* 9: Xen's movb $1, %gs:mask */
/* 25: Xen's unmask, test pending, and the call for it (xen/pv/patch.c);
 * natively a jmp over the rest pads it, still one instruction. */
#define PV_OP_DEF_irq_enable    void, (void), 25, NONE, "sti"
/* 11: Xen's cmpb $1, %gs:mask; sbb %eax, %eax, which sets IF and other bits. */
#define PV_OP_DEF_save_fl       unsigned long, (void), 11, RAX, "pushf\n\tpop %%rax"
/* 9: the conditional sti, test $0x200,%edi; jz 1f; sti (pv.restore_fl=condsti). */
#define PV_OP_DEF_restore_fl    void, (unsigned long flags), 9, NONE, "push %%rdi\n\tpopf"
/* sti's one-instruction shadow covers the hlt: an interrupt pending at the
 * sti is taken only once the hlt has begun, and so ends it. */
#define PV_OP_DEF_safe_halt     void, (void), 6, NONE, "sti\n\thlt"

/* Page tables. ptep is where the kernel reads the entry; how it is
 * written is the backend's business. */
#define PV_OP_DEF_read_cr3      uint64_t, (void), 6, RAX, "mov %%cr3, %%rax"
#define PV_OP_DEF_write_cr3     void, (uint64_t cr3), 6, NONE, "mov %%rdi, %%cr3"
#define PV_OP_DEF_flush_tlb_one void, (uint64_t va), 6, NONE, "invlpg (%%rdi)"
#define PV_OP_DEF_set_pte       void, (uint64_t *ptep, uint64_t val), 6, NONE, "mov %%rsi, (%%rdi)"
/* Returns the entry and leaves it clear (xchg with memory is locked), so
 * the CPU cannot set A/D in it for the commit to lose. */
#define PV_OP_DEF_ptep_modify_prot_start \
    uint64_t, (uint64_t *ptep), 6, RAX, "xor %%eax, %%eax\n\txchg %%rax, (%%rdi)"
#define PV_OP_DEF_ptep_modify_prot_commit \
    void, (uint64_t *ptep, uint64_t val), 6, NONE, "mov %%rsi, (%%rdi)"
/* Updates between the two may be queued; natively there is nothing to queue. */
#define PV_OP_DEF_enter_lazy_mmu void, (void), 6, NONE, ""
#define PV_OP_DEF_leave_lazy_mmu void, (void), 6, NONE, ""

/* The site ops of each table, in enum pv_op order (a descriptor's op
 * number is ABI: append, never reorder). X(arg, table, op). */
#define PV_SITES_irq(X, a) \
    X(a, irq, irq_disable) X(a, irq, irq_enable) X(a, irq, save_fl) X(a, irq, restore_fl) \
    X(a, irq, safe_halt)
#define PV_SITES_mmu(X, a) \
    X(a, mmu, read_cr3) X(a, mmu, write_cr3) X(a, mmu, flush_tlb_one) X(a, mmu, set_pte) \
    X(a, mmu, ptep_modify_prot_start) X(a, mmu, ptep_modify_prot_commit) \
    X(a, mmu, enter_lazy_mmu) X(a, mmu, leave_lazy_mmu)
#define PV_SITES_cpu(X, a)
#define PV_SITES_time(X, a)
#define PV_SITES_machine(X, a)
#define PV_SITES_patch(X, a)

/* Every site op. */
#define PV_SITES(X, a) PV_SITES_irq(X, a) PV_SITES_mmu(X, a)

/* What the kernel asks the CPU about itself. */
#define PV_CALLS_cpu(X, a) \
    X(a, cpu, cpuid, struct cpuid_result, (uint32_t leaf, uint32_t subleaf)) \
    X(a, cpu, read_cr2, uint64_t, (void)) /* the linear address of the last #PF */ \
    X(a, cpu, set_percpu_base, void, (uint64_t base)) /* this CPU's %gs base (kernel/percpu.h) */ \
    X(a, cpu, cpus_possible, unsigned, (void)) /* CPUs this machine offers, 1..MAX_CPUS */ \
    /* Starts CPU cpu on stack_top, where it ends in smp_cpu_main(cpu) (kernel/smp.h); \
     * how it was started ("APIC id 1, INIT-SIPI-SIPI"), or NULL, having said why not. */ \
    X(a, cpu, start_cpu, const char *, (unsigned cpu, uint64_t stack_top)) \
    X(a, cpu, send_ipi, void, (unsigned cpu)) /* ends cpu's safe_halt; does nothing else */
#define PV_CALLS_irq(X, a)
/* Rare page-table work, and the memory model: what an entry holds for a
 * frame (a machine address) and back. */
#define PV_CALLS_mmu(X, a) \
    /* Frame pa, zeroed or filled with valid entries, becomes a table. */ \
    X(a, mmu, make_page_table, void, (uint64_t pa, int level)) \
    X(a, mmu, set_table_entry, void, (uint64_t *entryp, uint64_t val)) /* links it in */ \
    /* Table pa, no longer linked anywhere, becomes a plain frame again. */ \
    X(a, mmu, release_page_table, void, (uint64_t pa, int level)) \
    /* Whether mprotect of a whole L1's worth of pages should build a new \
     * table and swap it in (mm/table_swap.c) instead of updating each entry. */ \
    X(a, mmu, swaps_whole_tables, bool, (void)) \
    X(a, mmu, phys_to_maddr, uint64_t, (uint64_t pa)) \
    X(a, mmu, maddr_to_phys, uint64_t, (uint64_t maddr)) \
    X(a, mmu, kernel_map_init, void, (const struct boot_info *bi)) /* final W^X tables */ \
    /* Invalidates [start, end) in the TLBs of the CPUs in cpus (a bit per \
     * CPU, never the caller's), and returns once they no longer use it. */ \
    X(a, mmu, flush_tlb_others, void, (unsigned cpus, uint64_t start, uint64_t end))
/* A monotonic clock and one one-shot timer per CPU; and a second clock,
 * the reference the time self-test checks the first one's rate against. */
#define PV_CALLS_time(X, a) \
    X(a, time, now_ns, uint64_t, (void)) \
    X(a, time, timer_oneshot, void, (uint64_t deadline_ns)) \
    /* The reference's ns from some origin, never 0, with *name saying what \
     * it is for the log; or 0 with *name saying why there is none. Read it \
     * from one CPU at a time, at least every few seconds (it may wrap). */ \
    X(a, time, reference_ns, uint64_t, (const char **name))
/* The machine around the CPU. */
#define PV_CALLS_machine(X, a) \
    X(a, machine, console_write, void, (const char *s, size_t len)) /* works from a trap */ \
    X(a, machine, exit, __attribute__((noreturn)) void, (int status)) /* 0 = clean; ends the VM */ \
    X(a, machine, setup, void, (void)) /* once the command line is read */ \
    /* The backend's own boot checks, in thread context, every CPU running. */ \
    X(a, machine, selftest, void, (void)) \
    /* The guest's lifecycle (kernel/lifecycle.c): a toolstack that saves, \
     * restores or moves the domain asks it to suspend. Watches for its \
     * requests: NULL, or why there is no toolstack to ask. */ \
    X(a, machine, lifecycle_start, const char *, (void)) \
    /* The request waiting ("suspend", "poweroff", "reboot"), taken; or NULL. */ \
    X(a, machine, lifecycle_request, const char *, (void)) \
    /* Suspends the domain, the other CPUs parked and events masked: 0 once \
     * resumed in a new domain, 1 if the suspend was cancelled. */ \
    X(a, machine, suspend, int, (void)) \
    /* A parked CPU's own part of a resume, on that CPU, events masked. */ \
    X(a, machine, cpu_resume, void, (unsigned cpu)) \
    X(a, machine, domain_id, unsigned, (void)) /* the domain's id, or ~0u */
/* Rewriting the kernel's own text. */
#define PV_CALLS_patch(X, a) \
    X(a, patch, site_backend, const struct pv_backend *, (void)) /* what sites become */ \
    X(a, patch, text_poke, void, (void *addr, const void *bytes, size_t len)) \
    /* Another form for the same sites, or NULL: what pv.repatch_test flips to. */ \
    X(a, patch, alt_site_backend, const struct pv_backend *, (void))

/* clang-format on */

/* A site op's fields, by name. */
#define PV_APPLY_(m, ...) m(__VA_ARGS__)
#define PV_RET_(ret, params, len, clob, native) ret
#define PV_PARAMS_(ret, params, len, clob, native) params
#define PV_LEN_(ret, params, len, clob, native) len
#define PV_CLOB_(ret, params, len, clob, native) PV_CLOBBER_##clob
#define PV_NATIVE_(ret, params, len, clob, native) native
#define PV_THUNK_KIND_(ret, params, len, clob, native) PV_THUNK_##clob
#define PV_OP_RET(op) PV_APPLY_(PV_RET_, PV_OP_DEF_##op)
#define PV_OP_PARAMS(op) PV_APPLY_(PV_PARAMS_, PV_OP_DEF_##op)
#define PV_OP_LEN(op) PV_APPLY_(PV_LEN_, PV_OP_DEF_##op)
#define PV_OP_CLOBBERS(op) PV_APPLY_(PV_CLOB_, PV_OP_DEF_##op)
#define PV_OP_NATIVE(op) PV_APPLY_(PV_NATIVE_, PV_OP_DEF_##op)
#define PV_OP_THUNK_KIND(op) PV_APPLY_(PV_THUNK_KIND_, PV_OP_DEF_##op)

#endif
