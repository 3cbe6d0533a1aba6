; Where a secondary vCPU starts (xen/pv/smp.c): VCPUOP_initialise's context
; puts it here in long mode, in guest kernel mode, on its idle thread's
; stack, with rdi = its number and events masked in its vcpu_info.
;
; void xen_cpu_start(unsigned cpu);  never returns

bits 64

extern xen_cpu_start

section .text
global xen_cpu_entry
xen_cpu_entry:
    cld
    xor ebp, ebp                    ; ends the frame-pointer chain for backtraces
    call xen_cpu_start              ; rsp is 16-byte aligned here, as the SysV ABI wants at a call
    ud2                             ; xen_cpu_start never returns
