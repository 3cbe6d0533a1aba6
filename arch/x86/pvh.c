/* The PVH door, in C, which QEMU's -kernel and Xen's PVH domain builder
 * both enter (boot/pvh.asm brings us to long mode): the same entry note,
 * the same struct hvm_start_info, the same magic. Only the CPU tells them
 * apart: under Xen, CPUID answers with Xen's leaves. */
#include <stdint.h>

#include "arch/x86/native/backend.h"
#include "kvm/backend.h"
#include "xen/cpuid_base.h"
#include "xen/pvh/backend.h"

/* Tour 40: Detection: which door, and who is behind it.
 * Each entry path fills boot_info (method, memory map, command line) and
 * installs its platform's ops tables before calling `kernel_main`. Two
 * doors have one platform each (multiboot2 is native, Xen's PV entry is
 * Xen PV); the PVH door has three, and asks the CPU once, here, with the
 * native cpuid instruction, which under hardware virtualization Xen or
 * KVM answers. Nothing later probes for a hypervisor, or asks which
 * platform it is on: the ops tables already say everything that differs. */
void pvh_start(uint32_t start_info_pa, uint32_t unused)
{
    uint32_t xen_base = xen_cpuid_base(native_cpuid), kvm_base;

    (void)unused;
    if (xen_base)
        xen_pvh_start(start_info_pa, xen_base);
    kvm_base = kvm_cpuid_base(native_cpuid);
    if (kvm_base)
        kvm_pvh_start(start_info_pa, kvm_base);
    native_pvh_start(start_info_pa);
}
