/* The KVM entry path: QEMU's PVH loader, as natively, with KVM's CPUID
 * leaves found at base. */
#include "arch/x86/native/backend.h"
#include "kernel/console.h"
#include "kvm/backend.h"

void kvm_pvh_start(uint32_t start_info_pa, uint32_t base)
{
    kvm_install(base);
    kprintf("kvm: CPUID leaves at 0x%x, features 0x%x\n", base,
            kvm_cpuid_features(native_cpuid, base));
    native_pvh_boot(start_info_pa, BOOT_KVM_PVH);
}
