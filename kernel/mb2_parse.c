/* Multiboot2 layout (Multiboot2 specification, "Boot information format"):
 *   u32 total_size, u32 reserved, then tags { u32 type; u32 size; ... }
 *   each starting 8-byte aligned, the last one of type 0 and size 8.
 * A memory map tag (type 6) is { u32 type, size, entry_size, entry_version }
 * then entries { u64 base, len; u32 type, reserved } of entry_size bytes. */
#include "kernel/mb2_parse.h"

#include "kernel/boot_mem.h"

#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_MMAP 6
#define MB2_MEMORY_AVAILABLE 1

#define MB2_HEADER_LEN 8
#define MB2_TAG_LEN 8
#define MB2_MMAP_HEADER_LEN 16
#define MB2_MMAP_ENTRY_LEN 24

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

static void read_cmdline(const uint8_t *tag, uint32_t size, struct boot_info *bi)
{
    size_t len = size - MB2_TAG_LEN;
    const char *s = skip_loader_path((const char *)tag + MB2_TAG_LEN, &len);

    boot_info_set_cmdline(bi, s, len);
}

/* tag is size bytes, size >= MB2_TAG_LEN, all inside the block. */
static const char *read_mmap(const uint8_t *tag, uint32_t size, struct boot_info *bi)
{
    uint32_t entry_size;

    if (size < MB2_MMAP_HEADER_LEN)
        return "memory map tag shorter than its header";
    entry_size = boot_load32(tag + 8);
    /* Newer entry versions may be longer; never shorter than the fields we read. */
    if (entry_size < MB2_MMAP_ENTRY_LEN)
        return "memory map entry size too small";
    for (uint32_t off = MB2_MMAP_HEADER_LEN; size - off >= entry_size; off += entry_size) {
        const uint8_t *e = tag + off;
        if (boot_load32(e + 16) == MB2_MEMORY_AVAILABLE)
            boot_info_add_ram(bi, boot_load64(e), boot_load64(e + 8));
    }
    return NULL;
}

const char *mb2_parse(const uint8_t *info, size_t len, struct boot_info *bi)
{
    uint32_t total;
    size_t off = MB2_HEADER_LEN;

    if (len < MB2_HEADER_LEN)
        return "block shorter than its header";
    total = boot_load32(info);
    if (total < MB2_HEADER_LEN || total > len)
        return "total_size outside the block";
    for (;;) {
        uint32_t type, size;
        const char *err = NULL;

        if (total - off < MB2_TAG_LEN)
            return "no end tag";
        type = boot_load32(info + off);
        size = boot_load32(info + off + 4);
        if (type == MB2_TAG_END)
            break;
        if (size < MB2_TAG_LEN)
            return "tag shorter than its header";
        if (size > total - off)
            return "tag crosses the end of the block";
        if (type == MB2_TAG_CMDLINE)
            read_cmdline(info + off, size, bi);
        else if (type == MB2_TAG_MMAP)
            err = read_mmap(info + off, size, bi);
        if (err)
            return err;
        /* size <= total - off, so this stays within total + 7. */
        off += ((size_t)size + 7) & ~(size_t)7;
        if (off > total)
            return "no end tag";
    }
    if (bi->nr_ram == 0)
        return "no available RAM in the memory map";
    return NULL;
}
