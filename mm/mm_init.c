#include "kernel/main.h"

#include "kernel/boot_info.h"
#include "kernel/console.h"
#include "kernel/exit.h"
#include "mm/frame_alloc.h"
#include "mm/kernel_map.h"

#define LOW_MEMORY_END (1ULL << 20) /* BIOS data, option ROMs: never ours */
#define MIB ((uint64_t)1 << 20)

void mm_init(const struct boot_info *bi)
{
    struct mem_range reserved[2 + sizeof(bi->reserved) / sizeof(bi->reserved[0])];
    size_t n = 0;
    uint64_t usable = 0;

    if (bi->nr_reserved_dropped)
        panic("boot information has %zu more reserved ranges than fit", bi->nr_reserved_dropped);
    if (bi->nr_shared_dropped)
        panic("boot information has %zu more shared pages than fit", bi->nr_shared_dropped);
    reserved[n++] = (struct mem_range){0, LOW_MEMORY_END};
    reserved[n++] =
        (struct mem_range){(uint64_t)__kernel_start, (uint64_t)(__kernel_end - __kernel_start)};
    for (size_t i = 0; i < bi->nr_reserved; i++)
        reserved[n++] = bi->reserved[i];
    frame_alloc_init(bi->ram, bi->nr_ram, reserved, n);

    for (size_t i = 0; i < bi->nr_ram; i++)
        usable += bi->ram[i].len;
    kprintf("mem: %lu MiB usable in %zu ranges, %lu frames free\n", usable / MIB, bi->nr_ram,
            frames_free());
    if (bi->nr_ram_dropped)
        kprintf("mem: %zu memory map entries beyond the first %d ignored\n", bi->nr_ram_dropped,
                BOOT_MAX_RANGES);
    if (frame_bytes_ignored())
        kprintf("mem: %lu MiB above the allocator's limit ignored\n", frame_bytes_ignored() / MIB);
    if (frames_free() == 0)
        panic("no free memory");
}
