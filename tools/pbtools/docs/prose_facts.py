"""What the image says, for the prose check (tools/prose_check.py): every
site's bytes as linked and as each platform writes them (tools/pvsites), the
hypercall sites, the image's own instructions, and the kernel options with
their choices and defaults (read from the "options" section, laid out as the
image's DWARF says struct option is).

    facts = Facts("build/patchbay.elf")      # FactsError if it cannot be read
    facts.templates["irq_disable"]           # [Template], one per distinct form
    facts.options["xen.mmu"].choices         # ["trap", "hypercall", "batch", "swap"]

A byte claim is a list of tokens: a byte (int), WILD (any one byte, for a
placeholder such as rel32's four) or ANY (any run of bytes, for "...")."""

import json
import os
import re
import struct
import subprocess
import tempfile

from pbtools.elf import pvsites
from pbtools.elf.image import Image, ImageError
from pbtools.paths import ROOT


WILD, ANY = "??", "..."
NOP_TEXT = re.compile(r"^(nop|xchg\s+%ax,%ax$|data16)")
HYPERCALL_SITE = struct.Struct("<QQII")  # addr, name, nr, reserved (xen/hypercall.h)


class FactsError(Exception):
    """The image or a tool cannot give the facts; the message is one line."""


class Insn:
    """One instruction of a site form: its bytes (None where a displacement
    differs from site to site) and objdump's text."""

    def __init__(self, raw, text):
        self.raw, self.text = raw, text
        self.mnemonic = text.split()[0] if text else ""

    def is_nop(self):
        return bool(NOP_TEXT.match(self.text))


class Template:
    """One form of a site: "as linked" or what a platform writes."""

    def __init__(self, op, label, insns):
        self.op, self.label, self.insns = op, label, insns
        self.raw = [b for i in insns for b in i.raw]
        self.linked = label == "as linked"

    def padding(self):
        """The instructions that only fill the site: after the call as
        linked, before the replacement as patched (NOPs, or a jmp over int3s)."""
        if self.linked:
            return self.insns[1:]
        n = 0
        while n < len(self.insns) and self.insns[n].is_nop():
            n += 1
        if n == 0 and self.insns and self.insns[0].mnemonic == "jmp" and len(self.insns) > 1 \
                and self.insns[1].mnemonic == "int3":
            n = 2
        return self.insns[:n]

    def shown(self):
        return " ".join("rel32" if b is None else f"{b:02x}" for b in self.raw)


def asm(insns):
    """Instructions as a reader writes them: a call by its target's name, a
    short jump relative to itself (`je .+7`), a run of int3s counted."""
    out = []
    for i in insns:
        target = re.search(r"<([^>+]+)>", i.text)
        if i.mnemonic in ("call", "jmp") and target:
            out.append(f"{i.mnemonic} {target.group(1)}")
        elif i.mnemonic.startswith("j") and len(i.raw) == 2:
            out.append(f"{i.mnemonic} .+{2 + (i.raw[1] ^ 0x80) - 0x80}")
        else:
            out.append(re.sub(r"\s+", " ", i.text.split("#")[0]).strip())
    return "; ".join(out)


class Option:
    def __init__(self, key, kind, choices, low, high, default):
        self.key, self.kind, self.choices = key, kind, choices
        self.low, self.high, self.default = low, high, default


def wildcarded(hexbytes, text):
    """An instruction's bytes, its rel32 or rip-relative disp32 as None: the
    part that differs between two sites of the same form."""
    raw = [int(b, 16) for b in hexbytes.split()]
    if "(%rip)" in text or (raw and raw[0] in (0xe8, 0xe9) and len(raw) == 5):
        raw[-4:] = [None] * 4
    return raw


def matches_at(claim, raw, at):
    """Whether claim's tokens match raw (bytes, None where the bytes differ
    from site to site) from index at."""
    i, j = 0, at
    while i < len(claim):
        token = claim[i]
        if token == ANY:
            return any(matches_at(claim[i + 1:], raw, k) for k in range(j, len(raw) + 1))
        # A displacement that differs between sites matches only a placeholder.
        if j >= len(raw) or (token != WILD and raw[j] != token):
            return False
        i, j = i + 1, j + 1
    return True


def contains(raw, claim, starts=None):
    """Whether claim occurs in raw, at one of starts if given (instruction starts)."""
    return any(matches_at(claim, raw, k) for k in (starts if starts is not None
                                                   else range(len(raw))))


def disassemble(data):
    """objdump's (hex, text) for raw bytes."""
    return [(b, t) for _, b, t in pvsites.disasm_bytes(bytes(data), 0)]


def assembled_length(asm):
    """The length of asm (AT&T, ';'-separated) as GNU as encodes it, or None
    if it does not assemble. A name in an operand (mask, disp32, $nr)
    stands for a number that needs 32 bits."""
    lines = []
    for insn in (i.strip() for i in asm.split(";")):
        mnemonic, _, operands = insn.partition(" ")
        operands = re.sub(r"\$[A-Za-z_]\w*", "$1", operands)
        operands = re.sub(r"(?<![%\w])[A-Za-z_]\w*", "0x12345", operands)
        lines.append(f"{mnemonic} {operands}")
    with tempfile.TemporaryDirectory() as d:
        src, obj = os.path.join(d, "a.s"), os.path.join(d, "a.o")
        with open(src, "w") as f:
            f.write(".text\n" + "\n".join(lines) + "\n")
        if subprocess.run(["as", "--64", "-o", obj, src], capture_output=True).returncode:
            return None
        return len(Image(obj).section_data(".text"))


class Facts:
    def __init__(self, image_path, sites=None):
        try:
            self.image = Image(image_path)
            self.sites = sites if sites is not None else self._read_sites(image_path)
            self.op_names = pvsites.op_names()
        except (ImageError, pvsites.ToolError) as e:
            raise FactsError(str(e)) from e
        self.templates, self.tables, self.platforms = {}, {}, set()
        for site in self.sites:
            self._add_site(site)
        self.hypercall_templates = self._hypercall_templates()
        self.options = self._options()
        self._stream = None

    @staticmethod
    def _read_sites(image_path):
        out = subprocess.run([os.path.join(ROOT, "tools", "pvsites"), image_path, "--json",
                              "--disasm"], capture_output=True, text=True)
        if out.returncode:
            raise FactsError(out.stderr.strip())
        return json.loads(out.stdout)

    def _add_site(self, site):
        op = site["op"]
        forms = [("as linked", site["disasm"])]
        forms += [(b["platform"], b["disasm"]) for b in site["backends"].values()
                  if b.get("disasm")]
        known = self.templates.setdefault(op, [])
        for label, lines in forms:
            insns = [Insn(wildcarded(hexbytes, text), text) for _, hexbytes, text in lines]
            t = Template(op, label, insns)
            if not any(k.raw == t.raw and k.label == t.label for k in known):
                known.append(t)
        table = re.search(r"<(pv_\w+_ops)", " ".join(t for _, _, t in site["disasm"]))
        if table:
            self.tables.setdefault(table.group(1), set()).add(op)
        self.platforms.update(b["platform"] for b in site["backends"].values())

    def site_lengths(self, ops):
        return {s["len"] for s in self.sites if s["op"] in ops}

    def _hypercall_templates(self):
        raw = self.image.section_data(".xen_hypercall_sites") or b""
        seen, out = set(), []
        for at in range(0, len(raw) - HYPERCALL_SITE.size + 1, HYPERCALL_SITE.size):
            addr = HYPERCALL_SITE.unpack_from(raw, at)[0]
            lines = pvsites.disasm_image(self.image.path, addr, 7)
            insns = [Insn(wildcarded(b, t), t) for _, b, t in lines]
            key = tuple(b for i in insns for b in i.raw)
            if key not in seen:
                seen.add(key)
                out.append(Template("hypercall", "as linked", insns))
        return out

    # ---- the image's own instructions ----

    def stream(self):
        """Every instruction of the image's text, as one hex string in which
        each instruction starts with '|'."""
        if self._stream is None:
            lines = pvsites.objdump_lines(["-d", self.image.path])
            self._stream = "".join("|" + b for _, b, _ in lines)
            self._mnemonics = {t.split()[0] for _, _, t in lines if t}
        return self._stream

    @property
    def mnemonics(self):
        """Every mnemonic the image's text uses, and those of the x86
        instructions the pages name that it need not."""
        self.stream()
        return self._mnemonics | {"cli", "sti", "hlt", "popf", "pushf", "nop", "syscall", "vmcall",
                                  "vmmcall", "out", "in", "int3", "ud2", "neg", "bt", "sbb"}

    def in_image_text(self, claim):
        if ANY in claim:
            return False
        pattern = r"\|" + r"[ |]".join("[0-9a-f]{2}" if t == WILD else f"{t:02x}" for t in claim)
        return re.search(pattern, self.stream()) is not None

    # ---- options ----

    def _option_layout(self):
        """struct option's member offsets and size, and enum option_type,
        from the DWARF of the file that parses options."""
        dwarf = self.image.elf.get_dwarf_info()
        for cu in dwarf.iter_CUs():
            top = cu.get_top_DIE()
            if not top.attributes["DW_AT_name"].value.decode().endswith("kernel/cmdline.c"):
                continue
            members, size, kinds = {}, None, {}
            for die in top.iter_children():
                name = die.attributes.get("DW_AT_name")
                if die.tag == "DW_TAG_structure_type" and name and name.value == b"option":
                    size = die.attributes["DW_AT_byte_size"].value
                    for m in die.iter_children():
                        members[m.attributes["DW_AT_name"].value.decode()] = \
                            m.attributes["DW_AT_data_member_location"].value
                if die.tag == "DW_TAG_enumeration_type":
                    for e in die.iter_children():
                        kinds[e.attributes["DW_AT_const_value"].value] = \
                            e.attributes["DW_AT_name"].value.decode()
            if size and kinds:
                return members, size, kinds
        raise FactsError(f"{self.image.path}: no struct option in its DWARF (kernel/cmdline.c)")

    def _options(self):
        start, stop = (self.image.symbol_address(s) for s in ("__start_options", "__stop_options"))
        if start is None or stop is None:
            raise FactsError(f"{self.image.path}: no options section (__start_options)")
        members, size, kinds = self._option_layout()

        def read(fmt, addr):
            return struct.unpack(fmt, self.image.bytes_at(addr, struct.calcsize(fmt)))[0]

        options = {}
        for at in range(start, stop, size):
            key = self.image.cstring_at(read("<Q", at + members["key"]))
            kind = kinds.get(read("<I", at + members["type"]), "?")
            value = read("<Q", at + members["value"])
            choices = []
            if kind == "OPT_ENUM":
                p = read("<Q", at + members["choices"])
                while read("<Q", p):
                    choices.append(self.image.cstring_at(read("<Q", p)))
                    p += 8
            options[key] = Option(key, kind, choices, read("<Q", at + members["min"]),
                                  read("<Q", at + members["max"]),
                                  self._default(kind, value, choices))
        return options

    def _default(self, kind, addr, choices):
        """An option's value as linked: .bss holds zeros."""
        section = self.image.section_at(addr)
        fmt = {"OPT_BOOL": "<B", "OPT_UINT": "<Q", "OPT_ENUM": "<i"}.get(kind)
        if fmt is None or section is None:
            return None
        raw = (self.image.bytes_at(addr, struct.calcsize(fmt)) if section["sh_type"] != "SHT_NOBITS"
               else bytes(struct.calcsize(fmt)))
        value = struct.unpack(fmt, raw)[0]
        if kind == "OPT_BOOL":
            return "on" if value else "off"
        if kind == "OPT_ENUM":
            return choices[value] if 0 <= value < len(choices) else None
        return value
