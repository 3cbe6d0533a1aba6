; The climb of a secondary CPU, from the real mode a startup IPI leaves it
; in to 64-bit C: void native_ap_main(unsigned cpu) (arch/x86/native/smp.c).
;
; A startup IPI with vector VV starts the CPU in real mode at CS = VV00h,
; IP = 0, i.e. at physical VV000h (Intel SDM vol. 3, 8.4.4.1), so this
; code runs from a copy at ap_trampoline_pa, a page below 1 MiB: the image
; keeps it in .rodata, and native_start_cpu() copies it there and fills
; ap_trampoline_params before each start. Addresses inside it are computed
; for that copy (TPA) and nothing in it is relocated.
;
; 16-bit -> 32-bit protected mode (paging off) -> CR4, CR3, EFER and CR0 as
; the boot CPU has them, which turns paging on in IA-32e mode -> 64-bit.
; With paging on, the copy must be mapped executable at VA == PA (SDM
; 9.8.5.3): native_start_cpu() maps the page read-only and executable only
; while one CPU climbs, and never writable at the same time.

global ap_trampoline_pa, ap_trampoline_start, ap_trampoline_params, ap_trampoline_end

ap_trampoline_pa equ 0x8000         ; startup vector 0x08; mm_init never hands out low memory

CR0_PE          equ 1 << 0
MSR_EFER        equ 0xc0000080
TRAMP_CODE32    equ tramp_gdt.code32 - tramp_gdt
TRAMP_DATA      equ tramp_gdt.data - tramp_gdt
TRAMP_CODE64    equ tramp_gdt.code64 - tramp_gdt

; Where label x is in the copy.
%define TPA(x) (ap_trampoline_pa + (x) - ap_trampoline_start)
; A field of the parameter block, in the copy: PARAM(ap_params.cr3).
%define PARAM(f) (TPA(ap_trampoline_params) + (f))

; Field for field struct ap_params in arch/x86/native/smp.c.
struc ap_params
    .cr0:       resq 1
    .cr3:       resq 1              ; below 4 GiB: loaded from 32-bit code
    .cr4:       resq 1
    .efer:      resq 1
    .stack_top: resq 1
    .entry:     resq 1              ; native_ap_main
    .cpu:       resq 1
endstruc

section .rodata progbits alloc noexec nowrite align=16
bits 16
ap_trampoline_start:
    cli
    xor ax, ax
    mov ds, ax                      ; TPA addresses are below 64 KiB (linker.ld checks)
    o32 lgdt [TPA(tramp_gdt_ptr)]
    mov eax, cr0
    or eax, CR0_PE
    mov cr0, eax
    jmp dword TRAMP_CODE32:TPA(.protected)

bits 32
.protected:
    mov ax, TRAMP_DATA
    mov ds, ax
    mov es, ax
    mov ss, ax
    ; Copied whole: the boot CPU sets no CR4 bit that needs long mode
    ; first (PCIDE would #GP here, SDM 4.10.1).
    mov eax, [PARAM(ap_params.cr4)]
    mov cr4, eax
    mov eax, [PARAM(ap_params.cr3)]
    mov cr3, eax
    mov ecx, MSR_EFER
    mov eax, [PARAM(ap_params.efer)]
    mov edx, [PARAM(ap_params.efer) + 4]
    wrmsr
    mov eax, [PARAM(ap_params.cr0)]
    mov cr0, eax                    ; PG with EFER.LME set: IA-32e mode (SDM 9.8.5)
    jmp TRAMP_CODE64:TPA(.long_mode)

bits 64
.long_mode:
    mov ax, TRAMP_DATA
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor eax, eax
    mov fs, ax
    mov gs, ax                      ; base 0 until percpu_init() sets this CPU's
    mov rsp, [PARAM(ap_params.stack_top)]
    mov edi, [PARAM(ap_params.cpu)]
    mov rax, [PARAM(ap_params.entry)]
    xor ebp, ebp                    ; ends the frame-pointer chain for backtraces
    push rbp                        ; a return address of 0, which ends it too
    jmp rax                         ; native_ap_main never returns

; Descriptors with the accessed bit already set: with paging on the page
; is read-only, and a load that had to set the bit would fault.
align 8
tramp_gdt:
    dq 0
.code32: dq 0x00cf9b000000ffff      ; 32-bit code, 4 GiB flat
.data:   dq 0x00cf93000000ffff      ; data, 4 GiB flat
.code64: dq 0x00af9b000000ffff      ; 64-bit code
tramp_gdt_ptr:
    dw tramp_gdt_ptr - tramp_gdt - 1
    dd TPA(tramp_gdt)

align 8
ap_trampoline_params:
    times ap_params_size db 0
ap_trampoline_end:
