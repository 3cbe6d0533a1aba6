/* Multiboot2 layout (Multiboot2 specification, "Boot information format"):
 *   u32 total_size, u32 reserved, then tags { u32 type; u32 size; ... }
 *   each starting 8-byte aligned, the last one of type 0 and size 8.
 * A memory map tag (type 6) is { u32 type, size, entry_size, entry_version }
 * then entries { u64 base, len; u32 type, reserved } of entry_size bytes.
 * The ACPI tags (types 14 and 15) hold a copy of the RSDP after their
 * 8-byte header. */
#include "kernel/mb2_parse.h"

#include "kernel/boot_mem.h"

#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_MMAP 6
#define MB2_TAG_ACPI_OLD 14 /* a copy of an ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW 15 /* a copy of an ACPI 2.0+ RSDP */
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

/* The block's total_size, checked against the len bytes readable. */
static const char *block_total(const uint8_t *info, size_t len, uint32_t *total)
{
    if (len < MB2_HEADER_LEN)
        return "block shorter than its header";
    *total = boot_load32(info);
    if (*total < MB2_HEADER_LEN || *total > len)
        return "total_size outside the block";
    return NULL;
}

/* The type and size of the tag at off, checked to lie inside the block
 * (an end tag's size is not looked at). off may be up to total + 7. */
static const char *tag_at(const uint8_t *info, uint32_t total, size_t off, uint32_t *type,
                          uint32_t *size)
{
    if (off > total || total - off < MB2_TAG_LEN)
        return "no end tag";
    *type = boot_load32(info + off);
    *size = boot_load32(info + off + 4);
    if (*type == MB2_TAG_END)
        return NULL;
    if (*size < MB2_TAG_LEN)
        return "tag shorter than its header";
    if (*size > total - off)
        return "tag crosses the end of the block";
    return NULL;
}

/* Tags start 8-byte aligned; size <= total - off, so this stays within total + 7. */
static size_t next_tag(size_t off, uint32_t size)
{
    return off + (((size_t)size + 7) & ~(size_t)7);
}

const char *mb2_parse(const uint8_t *info, size_t len, struct boot_info *bi)
{
    uint32_t total, type, size;
    const char *err = block_total(info, len, &total);

    for (size_t off = MB2_HEADER_LEN; !err; off = next_tag(off, size)) {
        err = tag_at(info, total, off, &type, &size);
        if (err || type == MB2_TAG_END)
            break;
        if (type == MB2_TAG_CMDLINE)
            read_cmdline(info + off, size, bi);
        else if (type == MB2_TAG_MMAP)
            err = read_mmap(info + off, size, bi);
    }
    if (err)
        return err;
    if (bi->nr_ram == 0)
        return "no available RAM in the memory map";
    return NULL;
}

size_t mb2_acpi_rsdp(const uint8_t *info, size_t len)
{
    uint32_t total, type, size;
    size_t found = 0;

    if (block_total(info, len, &total))
        return 0;
    for (size_t off = MB2_HEADER_LEN; !tag_at(info, total, off, &type, &size);
         off = next_tag(off, size)) {
        if (type == MB2_TAG_END)
            break;
        /* ACPI 6.4 5.2.5.3: an RSDP is 20 bytes at revision 0, 36 from revision 2. */
        if (type == MB2_TAG_ACPI_NEW && size >= MB2_TAG_LEN + 36)
            return off + MB2_TAG_LEN;
        if (type == MB2_TAG_ACPI_OLD && size >= MB2_TAG_LEN + 20)
            found = off + MB2_TAG_LEN;
    }
    return found;
}
