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
    }
    return "unknown";
}

bool boot_on_xen(void)
{
    return boot_info.method == BOOT_XEN_PV;
}

void boot_info_add_ram(struct boot_info *bi, uint64_t base, uint64_t len)
{
    if (bi->nr_ram == BOOT_MAX_RANGES) {
        bi->nr_ram_dropped++;
        return;
    }
    bi->ram[bi->nr_ram].base = base;
    bi->ram[bi->nr_ram].len = len;
    bi->nr_ram++;
}

void boot_info_add_reserved(struct boot_info *bi, uint64_t base, uint64_t len)
{
    size_t max = sizeof(bi->reserved) / sizeof(bi->reserved[0]);

    if (bi->nr_reserved == max) {
        bi->nr_reserved_dropped++;
        return;
    }
    bi->reserved[bi->nr_reserved].base = base;
    bi->reserved[bi->nr_reserved].len = len;
    bi->nr_reserved++;
}

/* Copies at most max bytes of the loader's string; the loader's copy may be
 * overwritten once the frame allocator runs. */
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
