/* The multiboot2 entry path, in C: boot/multiboot2.asm has checked the
 * loader magic and brought us to long mode with GRUB's boot information.
 * Layout per the Multiboot2 specification: a u32 total size, a u32
 * reserved word, then 8-byte-aligned tags ending with type 0. */
#include <stdint.h>

#include "arch/x86/native/backend.h"
#include "kernel/boot_info.h"
#include "kernel/exit.h"

#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_MMAP 6
#define MB2_MEMORY_AVAILABLE 1

struct mb2_tag {
    uint32_t type;
    uint32_t size;
};

struct mb2_mmap_tag {
    struct mb2_tag tag;
    uint32_t entry_size;
    uint32_t entry_version;
    /* entries follow, each entry_size bytes */
};

struct mb2_mmap_entry {
    uint64_t base;
    uint64_t len;
    uint32_t type;
    uint32_t reserved;
};

static void mb2_read_mmap(const struct mb2_mmap_tag *t)
{
    const uint8_t *p = (const uint8_t *)(t + 1);
    const uint8_t *end = (const uint8_t *)t + t->tag.size;

    if (t->entry_size < sizeof(struct mb2_mmap_entry))
        panic("multiboot2 memory map entry size %u is too small", t->entry_size);
    for (; p + t->entry_size <= end; p += t->entry_size) {
        const struct mb2_mmap_entry *e = (const void *)p;
        if (e->type == MB2_MEMORY_AVAILABLE)
            boot_info_add_ram(&boot_info, e->base, e->len);
    }
}

/* GRUB puts the kernel's own file name first ("/boot/patchbay.elf a=1"):
 * a first word that starts with '/' and has no '=' is that, not an option.
 * Only this door has it, so only this door drops it. */
static const char *skip_loader_path(const char *s, size_t *len)
{
    size_t i = 0, word;

    while (i < *len && s[i] == ' ')
        i++;
    if (i == *len || s[i] != '/')
        return s;
    for (word = i; word < *len && s[word] && s[word] != ' '; word++)
        if (s[word] == '=')
            return s;
    *len -= word;
    return s + word;
}

static void mb2_read_tag(const struct mb2_tag *tag)
{
    const char *s;
    size_t len;

    switch (tag->type) {
    case MB2_TAG_CMDLINE:
        len = tag->size - sizeof(*tag);
        s = skip_loader_path((const char *)(tag + 1), &len);
        boot_info_set_cmdline(&boot_info, s, len);
        break;
    case MB2_TAG_MMAP:
        mb2_read_mmap((const struct mb2_mmap_tag *)tag);
        break;
    }
}

void multiboot2_start(uint32_t info_pa, uint32_t magic)
{
    const uint8_t *info = (const uint8_t *)(uintptr_t)info_pa;
    uint32_t total = *(const uint32_t *)info;
    const uint8_t *p = info + 8;

    (void)magic;
    native_install();
    boot_info.method = BOOT_NATIVE_MULTIBOOT2;
    while (p + sizeof(struct mb2_tag) <= info + total) {
        const struct mb2_tag *tag = (const void *)p;
        if (tag->type == MB2_TAG_END)
            break;
        if (tag->size < sizeof(*tag))
            panic("multiboot2 tag type %u at %p has size %u", tag->type, tag, tag->size);
        mb2_read_tag(tag);
        p += (tag->size + 7) & ~7u;
    }
    if (boot_info.nr_ram == 0)
        panic("multiboot2 information has no memory map");
    kernel_main();
}
