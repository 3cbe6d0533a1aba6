/* KVM's PV send-IPI: one KVM_HC_SEND_IPI hypercall carries an IPI to
 * every CPU of a set, where the LAPIC way writes the ICR (an exit to KVM)
 * once per target. */
#include <asm/kvm_para.h>
#include <linux/kvm_para.h>

#include "arch/x86/native/backend.h"
#include "kernel/exit.h"
#include "kvm/backend.h"
#include "kvm/hypercall.h"

bool kvm_vmmcall;
static uint64_t ipi_hypercalls;

/* KVM ABI (KVM_HC_SEND_IPI): a 128-bit bitmap of APIC ids from a base
 * id, and the ICR's low word (fixed delivery: the vector alone); it
 * returns how many it delivered, or a negative error. MAX_CPUS APIC ids
 * from the lowest fit the bitmap. */
void kvm_ipi_many(unsigned cpus, uint8_t vector)
{
    uint64_t bitmap[2] = {0, 0};
    unsigned base = 255;
    long ret;

    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++)
        if (cpus & (1u << cpu) && native_cpu_apic_id(cpu) < base)
            base = native_cpu_apic_id(cpu);
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        unsigned bit = native_cpu_apic_id(cpu) - base;

        if (cpus & (1u << cpu) && bit < 128)
            bitmap[bit / 64] |= 1ull << (bit % 64);
        else if (cpus & (1u << cpu))
            panic("kvm: APIC id %u is beyond a send-IPI bitmap from %u", bit + base, base);
    }
    ret = kvm_hypercall4(KVM_HC_SEND_IPI, bitmap[0], bitmap[1], base, vector);
    if (ret < 0)
        panic("kvm: KVM_HC_SEND_IPI to cpus 0x%x failed: %ld", cpus, ret);
    __atomic_fetch_add(&ipi_hypercalls, 1, __ATOMIC_RELAXED);
}

uint64_t kvm_ipi_hypercalls(void)
{
    return __atomic_load_n(&ipi_hypercalls, __ATOMIC_RELAXED);
}
