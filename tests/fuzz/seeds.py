#!/usr/bin/env python3
"""Writes the checked-in seed corpus, tests/fuzz/corpus/<target>/: a few
well-formed inputs per target, and a few just past an edge, for the
fuzzer to mutate. Rerun after changing an input layout; the layouts are
in each tests/fuzz/fuzz_<target>.c."""

import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
OPS = ["irq_disable", "irq_enable", "save_fl", "restore_fl", "safe_halt", "read_cr3",
       "write_cr3", "flush_tlb_one", "set_pte", "ptep_modify_prot_start",
       "ptep_modify_prot_commit", "enter_lazy_mmu", "leave_lazy_mmu"]


def u32(v):
    return struct.pack("<I", v)


def u64(v):
    return struct.pack("<Q", v)


def write(target, seeds):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)


def cmdline():
    return {
        "typical": "pv.patch=off wl.pages=16 fault=pf name=abc",
        "loader_path": "/boot/patchbay.elf pv mem=512M any=0xffffffffffffffff one=only",
        "bad_values": "bogus=1 wl.pages=0 fault=xx empty=a fixed=8 mem=0x10G pv=maybe",
        "needs_value": "name fault wl.pages\tpv.patch=1\n" + "x" * 80 + "=" + "y" * 80,
        "overflow": "any=18446744073709551616 wl.pages=4097 mem=17179869184K any=0x",
        "suffixes": "any=1k fixed=7K wl.pages=4K mem=1g any=0x1M wl.pages=1k",
        "lists": "list=irq,c list=irq_off,bogus,, list= list list=all,all,all,all",
    }


def boot_info():
    def ram(b, n):
        return b"\x01" + u64(b) + u64(n)

    def cmd(s, mx):
        return b"\x00" + struct.pack("<H", mx) + s

    return {
        "ram_and_cmdline": ram(0, 0x9f000) + ram(0x100000, 1 << 30) + cmd(b"console=ttyS0\0", 14),
        "no_nul": cmd(b"abc", 3) + b"\x02" + u64(0x100000) + u64(0x2000),
        "long_cmdline": cmd(b"a" * 1100, 1100),
        "many_reserved": b"".join(b"\x02" + u64(i << 12) + u64(4096) for i in range(10)),
        "many_ram": b"".join(ram(i << 20, 1 << 20) for i in range(66)),
    }


def mb2_tag(t, body):
    tag = u32(t) + u32(8 + len(body)) + body
    return tag + b"\0" * (-len(tag) % 8)


def mb2_block(tags):
    body = b"".join(tags) + u32(0) + u32(8)
    return u32(8 + len(body)) + u32(0) + body


def mb2_mmap(entries, entry_size=24):
    body = u32(entry_size) + u32(0)
    for base, n, t in entries:
        e = u64(base) + u64(n) + u32(t) + u32(0)
        body += e + b"\0" * (entry_size - len(e))
    return mb2_tag(6, body)


def mb2():
    mmap = mb2_mmap([(0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0x100000, 0x7ee0000, 1)])
    return {
        "grub": mb2_block([mb2_tag(1, b"/boot/patchbay.elf pv.patch=off\0"),
                           mb2_tag(2, b"GRUB 2.06\0"), mmap]),
        "mmap_only": mb2_block([mmap]),
        "wide_entries": mb2_block([mb2_mmap([(0x100000, 1 << 28, 1)], entry_size=32)]),
        "no_end": u32(24) + u32(0) + mb2_tag(1, b"abc\0"),
        "cmdline_unterminated": mb2_block([mb2_tag(1, b"console"), mmap]),
        # A tag whose size, added to its offset, wraps a 32-bit sum.
        "size_wraps": u32(24) + u32(0) + u32(2) + u32(0xfffffff9) + u32(0) + u32(8),
    }


def pvh_seed(version=1, entries=None, cmdline=b"pv.patch=off\0", magic=0x336ec578):
    base = 0x100000
    entries = entries if entries is not None else [(0, 0x9fc00, 1), (0x100000, 1 << 30, 1),
                                                   (0xfee00000, 0x1000, 2)]
    memmap = b"".join(u64(a) + u64(n) + u32(t) + u32(0) for a, n, t in entries)
    memmap_pa = base + 56
    cmdline_pa = memmap_pa + len(memmap) if cmdline else 0
    si = (u32(magic) + u32(version) + u32(0) + u32(0) + u64(0) + u64(cmdline_pa) + u64(0)
          + u64(memmap_pa) + u32(len(entries)) + u32(0))
    return u64(base) + si + memmap + (cmdline or b"")


def pvh():
    return {
        "qemu": pvh_seed(),
        "no_cmdline": pvh_seed(cmdline=None),
        "version0": pvh_seed(version=0),
        "unterminated_cmdline": pvh_seed(cmdline=b"console=hvc0"),
        "no_ram": pvh_seed(entries=[(0xfee00000, 0x1000, 2)]),
    }


def acpi_sum(b, at):
    """b with the byte at `at` set so that all of b sums to 0 (mod 256)."""
    b = bytearray(b)
    b[at] = 0
    b[at] = -sum(b) & 0xff
    return bytes(b)


def acpi_table(sig, body):
    return acpi_sum(sig + u32(36 + len(body)) + b"\x01\x00" + b"PBAYTS" + b"\0" * 20 + body, 9)


def fadt(pm_port=0x608, flags=0, x_block=None, length=116):
    """A FADT body after its header: PM_TMR_BLK pm_port (PM_TMR_LEN 4
    when nonzero), flags, and when x_block = (address space, address) the
    X_PM_TMR_BLK of an ACPI 2.0 FADT, whose length is then 244."""
    body = bytearray((244 if x_block else length) - 36)
    body[76 - 36:80 - 36] = u32(pm_port)
    body[91 - 36] = 4 if pm_port else 0
    body[112 - 36:116 - 36] = u32(flags)
    if x_block:
        body[208 - 36:220 - 36] = bytes([x_block[0], 32, 0, 3]) + u64(x_block[1])
    return bytes(body)


def acpi_seed(cpus, rev=0, find=True, extra=b"", lapic=0xfee00000, fadt_body=None):
    """u64 rsdp_pa (0 when find), then the window at 0xe0000: the RSDP at
    0x10, the root table at 0x40, the MADT at 0x100 listing cpus, a list
    of (type, id, flags) with type 0 or 9, then extra entries; and when
    fadt_body is given, a FADT at 0x200, listed first as QEMU lists it."""
    base = 0xe0000
    entries = b""
    for t, apic_id, flags in cpus:
        if t == 0:
            entries += bytes([0, 8, 0, apic_id]) + u32(flags)
        else:
            entries += bytes([9, 16, 0, 0]) + u32(apic_id) + u32(flags) + u32(0)
    madt = acpi_table(b"APIC", u32(lapic) + u32(1) + entries + extra)
    tables = ([base + 0x200] if fadt_body is not None else []) + [base + 0x100]
    if rev >= 2:
        root = acpi_table(b"XSDT", b"".join(u64(t) for t in tables))
    else:
        root = acpi_table(b"RSDT", b"".join(u32(t) for t in tables))
    rsdp = acpi_sum(b"RSD PTR \0PBAYTS" + bytes([rev]) + u32(base + 0x40), 8)
    if rev >= 2:
        rsdp = acpi_sum(rsdp + u32(36) + u64(base + 0x40) + b"\0" * 4, 32)
    window = (b"\0" * 0x10 + rsdp).ljust(0x40, b"\0") + root
    window = window.ljust(0x100, b"\0") + madt
    if fadt_body is not None:
        window = window.ljust(0x200, b"\0") + acpi_table(b"FACP", fadt_body)
    return u64(0 if find else base + 0x10) + window


def acpi():
    lapics = [(0, i, 1) for i in range(4)]
    return {
        "qemu_one": acpi_seed([(0, 0, 1)]),
        "xsdt_four": acpi_seed(lapics, rev=2, find=False),
        "disabled_and_x2apic": acpi_seed([(0, 0, 1), (0, 1, 0), (9, 7, 1), (9, 300, 1), (9, 0, 1)]),
        "ten_and_override": acpi_seed([(0, i, 1) for i in range(10)],
                                      extra=bytes([5, 12, 0, 0]) + u64(0xfee00000)),
        "entry_length_0": acpi_seed(lapics, extra=bytes([1, 0]) + b"\0" * 10),
        "fadt_v1_pm_timer": acpi_seed([(0, 0, 1)], fadt_body=fadt()),
        "fadt_v2_x_pm_timer": acpi_seed(lapics, rev=2, find=False,
                                        fadt_body=fadt(flags=1 << 8, x_block=(1, 0xb008))),
        "fadt_x_pm_timer_in_memory": acpi_seed([(0, 0, 1)], rev=2,
                                               fadt_body=fadt(x_block=(0, 0xfed000f0))),
        "fadt_hw_reduced": acpi_seed([(0, 0, 1)], fadt_body=fadt(flags=1 << 20)),
    }


def xen_seed(nr_pages=0x8000, magic=b"xen-3.0-x86_64", cmdline=b"console=xen\0", page_addr=None):
    kend = 0xffffffff80200000
    page_addr = page_addr if page_addr is not None else kend + 0x40000
    stack = kend + 0x80000
    pt_base = kend + 0x50000
    mfn_list = kend
    si = magic.ljust(32, b"\0")
    si += u64(nr_pages) + u64(0x12345000) + u32(0) + u32(0)   # nr_pages, shared_info, flags, pad
    si += u64(0x1234) + u32(1) + u32(0)                        # store_mfn, store_evtchn, pad
    si += u64(0x1235) + u32(2) + u32(0)                        # console.domU
    si += u64(pt_base) + u64(4) + u64(mfn_list) + u64(0) + u64(0)
    si += cmdline.ljust(1024, b"\0")[:1024]
    si += u64(0) + u64(0)
    return u64(page_addr) + u64(kend) + u64(stack) + si


def xen_start_info():
    return {
        "domu": xen_seed(),
        "long_cmdline": xen_seed(cmdline=b"x" * 1024),
        "bad_magic": xen_seed(magic=b"xen-3.0-x86_32p"),
        "huge_nr_pages": xen_seed(nr_pages=1 << 60),
        "start_info_at_top": xen_seed(page_addr=0xfffffffffffff800),
    }


def pv_site_seed(mode, sites, text_len=64, direct_mask=0x1fff):
    start = 0xffffffff81000000
    text = bytearray(b"\x90" * text_len)
    for off in range(0, text_len - 5, 16):
        text[off:off + 6] = b"\xff\x15\x00\x00\x00\x00"
    hdr = (u64(start) + bytes([mode]) + u64(0xffffffff81200000) + u64(0xffffffff80f00000)
           + u32(direct_mask) + bytes([text_len]))
    descs = b"".join(u64(start + off) + struct.pack("<HBBI", op, n, 0, 0) for off, op, n in sites)
    return hdr + bytes(text) + descs


def pv_site():
    every = [(16 * (i % 4), i, 7 + i % 9) for i in range(13)]
    return {
        "native": pv_site_seed(0, [(0, 0, 7), (16, 2, 10), (32, 3, 12), (48, 5, 13)]),
        "condsti": pv_site_seed(1, [(0, 3, 15), (16, 3, 6)]),
        "xen": pv_site_seed(2, [(0, 0, 7), (16, 1, 12), (32, 6, 15)]),
        "xen_no_direct": pv_site_seed(6, every, direct_mask=0),
        "twice_and_edges": pv_site_seed(0, [(0, 0, 7), (0, 0, 7), (58, 1, 6), (59, 1, 6),
                                            (16, 13, 7), (32, 1, 16)]),
    }


def bench_select():
    return {
        "all": "all",
        "names": "irq_disable,call",
        "groups": "irq,calls,i",
        "unknown": "irq_disable,,bogus," + "x" * 60,
        "commas": ",,all,",
    }


def pvemit():
    lines = "".join(f"ffffffff8100{i:02x}00 {op} {7 + i % 9}\n" for i, op in enumerate(OPS))
    return {
        "plain": b"\x00" + lines.encode(),
        "xen": b"\x01" + lines.encode(),
        "xen_direct": b"\x02ffffffff81000000 irq_enable 12\n7fff0000 save_fl 10\n",
        "bad_line": b"\x03ffffffff81000000 restore_fl 6\nzz nosuchop 7\n",
        "too_long": b"\x00ffffffffffffffff irq_disable 99\n0 safe_halt 5\n",
        # A 32-byte site, the longest, read whole.
        "site-32-bytes": b"\x00" + b"f" * 16 + b" irq_disable 32\n0 safe_halt 50",
    }


def blkif_rsp(rid, op, status):
    return u64(rid) + bytes([op]) + struct.pack("<h", status)


def blkif_response():
    ops = bytes([0, 1, 3] + [0] * 29)
    return {
        "ok": u32(0x7) + ops + blkif_rsp(0, 0, 0) + blkif_rsp(1, 1, 0) + blkif_rsp(2, 3, -2),
        "twice": u32(0x1) + ops + blkif_rsp(0, 0, 0) + blkif_rsp(0, 0, 0),
        "bad": u32(0x3) + ops + blkif_rsp(1, 0, 0) + blkif_rsp(0, 0, 42) + blkif_rsp(32, 0, 0),
    }


GUEST_MAC = bytes.fromhex("525400123456")
PEER_MAC = bytes.fromhex("52550a000202")
GUEST_IP, PEER_IP = bytes([10, 0, 2, 15]), bytes([10, 0, 2, 2])


def inet_sum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return struct.pack("!H", ~s & 0xffff)


def ipv4(proto, l4, flags=0x4000, ihl=5, total=None, dst=GUEST_IP):
    opts = b"\0" * (4 * ihl - 20)
    h = (bytes([0x40 | ihl, 0]) + struct.pack("!HHH", total or 4 * ihl + len(l4), 0x1234, flags)
         + bytes([64, proto]) + b"\0\0" + PEER_IP + dst + opts)
    h = h[:10] + inet_sum(h) + h[12:]
    return GUEST_MAC + PEER_MAC + b"\x08\x00" + h + l4


def udp(port, data):
    u = struct.pack("!HHHH", 40000, port, 8 + len(data), 0) + data
    pseudo = PEER_IP + GUEST_IP + struct.pack("!BBH", 0, 17, len(u))
    return ipv4(17, u[:6] + inet_sum(pseudo + u) + u[8:])


def ping(data):
    m = struct.pack("!BBHHH", 8, 0, 0, 0xbeef, 1) + data
    return ipv4(1, m[:2] + inet_sum(m) + m[4:])


def arp(op, tpa):
    return (b"\xff" * 6 + PEER_MAC + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, op)
            + PEER_MAC + PEER_IP + b"\0" * 6 + tpa + b"\0" * 18)


def net_input():
    """A fix-up byte (0: the frame as it is), then a frame a peer sends."""
    return {
        "ping": b"\0" + ping(bytes(range(56))),
        "udp_echo": b"\0" + udp(7, b"\0\0\0\1" + bytes(range(60))),
        "stats": b"\0" + udp(9, b"stats"),
        "end": b"\0" + udp(9, b"end sent=10 received=10 wrong=0 lost=0\n"),
        "arp_request": b"\0" + arp(1, GUEST_IP),
        "arp_reply": b"\0" + arp(2, GUEST_IP),
        "fragment": b"\0" + ipv4(17, b"\0" * 16, flags=0x2000),
        "options": b"\0" + ipv4(1, b"\0" * 16, ihl=6),
        "truncated": b"\0" + ipv4(17, b"\0" * 16, total=200),
        "fix_me": b"\x07" + ipv4(17, struct.pack("!HHHH", 1, 7, 12, 0) + b"abcd"),
    }


def main():
    for name in ("cmdline", "boot_info", "mb2", "pvh", "acpi", "xen_start_info", "pv_site",
                 "bench_select", "pvemit", "blkif_response", "net_input"):
        write(name, globals()[name]())


if __name__ == "__main__":
    main()
