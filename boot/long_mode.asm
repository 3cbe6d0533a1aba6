; From 32-bit protected mode to 64-bit long mode, shared by the native
; entry paths (boot/pvh.asm, boot/multiboot2.asm).
;
; In:  ebp = the C function to call, edi = its first argument, esi = its second.
; The boot page tables identity-map the first 4 GiB with 2 MiB pages, which
; is enough to reach the kernel, the boot information and the first RAM.
; C replaces them with W^X page tables soon after (arch/x86/native/kernel_map.c).

bits 32

COM1            equ 0x3f8
DEBUG_EXIT_PORT equ 0xf4            ; QEMU's isa-debug-exit device
CR0_PE          equ 1 << 0
CR0_WP          equ 1 << 16
CR0_PG          equ 1 << 31
CR4_PAE         equ 1 << 5
MSR_EFER        equ 0xc0000080
EFER_LME        equ 1 << 8
EFER_NXE        equ 1 << 11
PTE_P           equ 1 << 0
PTE_W           equ 1 << 1
PTE_PS          equ 1 << 7          ; a 2 MiB page in a page directory

extern boot_stack_top

section .boot.text progbits alloc exec nowrite align=16
; Tour 20: Climbing into long mode.
; The two native doors share this: a stack, page tables mapping the first
; 4 GiB with 2 MiB pages, CR4.PAE, EFER.LME (and EFER.NXE when the CPU has
; NX, so W^X can be enforced later), paging on, a 64-bit code segment, then
; the C function the door named: `pvh_start` or `multiboot2_start`.
global long_mode_enter
long_mode_enter:
    mov esp, boot_stack_top
    push edi                        ; the C arguments survive the cpuid and rep stos below
    push esi
    call require_long_mode
    call build_boot_page_tables

    mov eax, cr4
    or eax, CR4_PAE
    mov cr4, eax
    mov eax, boot_pml4
    mov cr3, eax

    call nx_supported
    mov ebx, EFER_LME
    test eax, eax
    jz .no_nx
    or ebx, EFER_NXE
.no_nx:
    mov ecx, MSR_EFER
    rdmsr
    or eax, ebx
    wrmsr

    mov eax, cr0
    or eax, CR0_PG | CR0_PE | CR0_WP
    mov cr0, eax
    pop esi
    pop edi

    lgdt [boot_gdt_ptr]
    jmp BOOT_CS:.long_mode

bits 64
.long_mode:
    mov ax, BOOT_DS
    mov ds, ax
    mov es, ax
    mov ss, ax
    xor eax, eax
    mov fs, ax
    mov gs, ax
    mov rsp, boot_stack_top
    mov edi, edi                    ; upper halves are undefined after the mode switch
    mov esi, esi
    mov eax, ebp
    xor ebp, ebp                    ; ends the frame-pointer chain for backtraces
    call rax
    ud2                             ; the C entry never returns

bits 32
; CPUID leaf 0x80000001 EDX bit 29: long mode.
require_long_mode:
    mov eax, 0x80000000
    cpuid
    cmp eax, 0x80000001
    jb .no_lm
    mov eax, 0x80000001
    cpuid
    test edx, 1 << 29
    jz .no_lm
    ret
.no_lm:
    mov esi, msg_no_long_mode
    jmp early_fail

; Returns eax != 0 if CPUID 0x80000001 EDX bit 20 (NX) is set.
nx_supported:
    mov eax, 0x80000001
    cpuid
    mov eax, edx
    and eax, 1 << 20
    ret

build_boot_page_tables:
    mov edi, boot_pml4
    mov ecx, (6 * 4096) / 4         ; pml4, pdpt and four page directories
    xor eax, eax
    rep stosd
    mov dword [boot_pml4], boot_pdpt + (PTE_P | PTE_W)
    mov edi, boot_pdpt
    mov eax, boot_pd + (PTE_P | PTE_W)
    mov ecx, 4
.pdpt:
    mov [edi], eax
    add eax, 4096
    add edi, 8
    loop .pdpt
    mov edi, boot_pd                ; 2048 entries x 2 MiB = 4 GiB
    xor eax, eax
    xor edx, edx                    ; high half of the physical address
    mov ecx, 2048
.pd:
    mov ebx, eax
    or ebx, PTE_P | PTE_W | PTE_PS
    mov [edi], ebx
    mov [edi + 4], edx
    add eax, 0x200000
    adc edx, 0
    add edi, 8
    loop .pd
    ret

; Prints the run's verdict, "patchbay: FAIL " and the NUL-terminated
; reason at esi, on COM1 and ends the run with failure status 1.  Used only
; before C can run, so the verdict line is the only line of ours; it starts
; with a newline of its own, as the loader may have left the cursor
; anywhere (GRUB ends its lines "\n\r", which put a \r before it).
global early_fail
early_fail:
    mov dx, COM1
    mov edi, esi                    ; no stack may exist yet: no calls
    mov esi, msg_verdict
.prefix:
    lodsb
    test al, al
    jz .reason
    out dx, al
    jmp .prefix
.reason:
    mov esi, edi
.next:
    lodsb
    test al, al
    jz .done
    out dx, al
    jmp .next
.done:
    mov al, 10
    out dx, al
    mov al, 1
    out DEBUG_EXIT_PORT, al
.halt:
    cli
    hlt
    jmp .halt

section .rodata
msg_verdict: db 10, "patchbay: FAIL ", 0
msg_no_long_mode: db "this CPU has no long mode; patchbay needs x86-64", 0

section .boot.data progbits alloc write noexec align=8
align 8
BOOT_CS equ boot_gdt.code - boot_gdt
BOOT_DS equ boot_gdt.data - boot_gdt
boot_gdt:
    dq 0
.code: dq 0x00af9a000000ffff        ; 64-bit code, present, ring 0
.data: dq 0x00cf92000000ffff        ; data, present, writable
boot_gdt_ptr:
    dw boot_gdt_ptr - boot_gdt - 1
    dq boot_gdt

section .bss.page_aligned nobits alloc write noexec align=4096
align 4096
boot_pml4: resb 4096
boot_pdpt: resb 4096
boot_pd:   resb 4 * 4096
