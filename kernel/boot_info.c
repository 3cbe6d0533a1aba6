#include "kernel/boot_info.h"

struct boot_info boot_info;

const char *boot_method_name(enum boot_method m)
{
    switch (m) {
    case BOOT_NATIVE_PVH:
        return "native/pvh";
    case BOOT_NATIVE_MULTIBOOT2:
        return "native/multiboot2";
    case BOOT_XEN_PV:
        return "xen-pv";
    case BOOT_XEN_PVH:
        return "xen-pvh";
    case BOOT_KVM_PVH:
        return "kvm/pvh";
    }
    return "unknown";
}

/* Appends [base, base + len) to a fixed array, counting what does not fit. */
static void add_range(struct mem_range *ranges, size_t *n, size_t max, size_t *dropped,
                      uint64_t base, uint64_t len)
{
    if (*n == max) {
        (*dropped)++;
        return;
    }
    ranges[*n] = (struct mem_range){base, len};
    (*n)++;
}

void boot_info_add_ram(struct boot_info *bi, uint64_t base, uint64_t len)
{
    add_range(bi->ram, &bi->nr_ram, BOOT_MAX_RANGES, &bi->nr_ram_dropped, base, len);
}

void boot_info_add_reserved(struct boot_info *bi, uint64_t base, uint64_t len)
{
    add_range(bi->reserved, &bi->nr_reserved, sizeof(bi->reserved) / sizeof(bi->reserved[0]),
              &bi->nr_reserved_dropped, base, len);
}

/* Copies at most max bytes of the loader's string; the loader's copy may be
 * overwritten once the frame allocator runs. */
void boot_info_add_shared_page(struct boot_info *bi, uint64_t pa)
{
    add_range(bi->shared, &bi->nr_shared, sizeof(bi->shared) / sizeof(bi->shared[0]),
              &bi->nr_shared_dropped, pa, 4096);
}

void boot_info_set_cmdline(struct boot_info *bi, const char *s, size_t max)
{
    size_t i;

    for (i = 0; i < max && s[i] != '\0'; i++) {
        if (i == BOOT_CMDLINE_MAX - 1) {
            bi->cmdline_truncated = true;
            break;
        }
        bi->cmdline[i] = s[i];
    }
    bi->cmdline[i] = '\0';
}
