"""Reading the kernel image for the Python tools: sections, symbols and the
bytes at an address, through Debian's python3-pyelftools (tools/setup
installs it).

    image = Image("build/patchbay.elf")     # ImageError if it cannot be read
    image.symbol_address("kernel_main"); image.bytes_at(addr, 16)
    image.function_at(addr) -> ("name", offset); image.section_data(".pv_sites")

Only ELF64 little-endian files are accepted: every image here is x86-64, and
a tool reading a 32-bit file would misread its descriptors silently."""

import io

from pbtools import imports

imports.debian("elftools", "python3-pyelftools")
from elftools.common.exceptions import ELFError  # noqa: E402
from elftools.elf.elffile import ELFFile  # noqa: E402

SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4


class ImageError(Exception):
    """The file cannot be read as an image; the message is one line naming it."""


class Symbol:
    """A defined symbol: name, type ("STT_FUNC", ...), value, size and the
    section index it is defined in (an int, or "SHN_ABS" and the like)."""

    __slots__ = ("name", "type", "value", "size", "shndx")

    def __init__(self, name, sym_type, value, size, shndx):
        self.name, self.type, self.value, self.size, self.shndx = (
            name, sym_type, value, size, shndx)


class Image:
    """An ELF image read once into memory."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                self.data = f.read()
        except OSError as e:
            raise ImageError(f"{path}: {e.strerror}") from e
        # pyelftools reads ELF32 and big-endian files too; say so up front
        # rather than return numbers from the wrong layout.
        if self.data[:4] != b"\x7fELF":
            raise ImageError(f"{path}: not an ELF file")
        if self.data[4:6] != b"\x02\x01":  # EI_CLASS = ELFCLASS64, EI_DATA = ELFDATA2LSB
            raise ImageError(f"{path}: not an ELF64 little-endian file")
        try:
            self.elf = ELFFile(io.BytesIO(self.data))
            if self.elf.num_sections() == 0:
                raise ImageError(f"{path}: no section headers")
            self.all_sections = list(self.elf.iter_sections())
            self.sections = [s for s in self.all_sections if s.name]
            symtab = self.elf.get_section_by_name(".symtab")
            raw = list(symtab.iter_symbols()) if symtab else []
        except (ELFError, ValueError, IndexError, KeyError, AssertionError) as e:
            raise ImageError(f"{path}: truncated or corrupt ELF file") from e
        except Exception as e:  # construct's parse errors have no common public base
            if type(e).__module__.startswith(("elftools", "construct")):
                raise ImageError(f"{path}: truncated or corrupt ELF file") from e
            raise
        self.symbols = [Symbol(s.name, s["st_info"]["type"], s["st_value"], s["st_size"],
                               s["st_shndx"])
                        for s in raw if s.name and s["st_shndx"] != "SHN_UNDEF"]
        # The first definition wins: a local static that shares a global's
        # name comes after it in .symtab only by accident of link order.
        self.addresses = {}
        for s in self.symbols:
            self.addresses.setdefault(s.name, s.value)
        self._functions = sorted((s.value, s.size, s.name) for s in self.symbols
                                 if s.type == "STT_FUNC")
        self._objects = sorted((s.value, s.size, s.name) for s in self.symbols
                               if s.type in ("STT_FUNC", "STT_OBJECT"))

    # ---- sections ----

    def section(self, name):
        """The section called name, or None."""
        return self.elf.get_section_by_name(name)

    def section_at(self, addr):
        """The allocated, non-empty section holding addr, or None."""
        for s in self.sections:
            if s["sh_flags"] & SHF_ALLOC and s["sh_addr"] <= addr < s["sh_addr"] + s["sh_size"]:
                return s
        return None

    def section_data(self, name):
        """The file bytes of the section called name; None if there is no
        such section, b"" if it occupies no file space."""
        s = self.section(name)
        if s is None:
            return None
        if s["sh_type"] == "SHT_NOBITS":
            return b""
        return self.data[s["sh_offset"]:s["sh_offset"] + s["sh_size"]]

    def _file_offset(self, addr):
        s = self.section_at(addr)
        if s is None or s["sh_type"] == "SHT_NOBITS":
            return None
        return s["sh_offset"] + addr - s["sh_addr"]

    def bytes_at(self, addr, length):
        """length bytes of the file image at addr; None outside file-backed sections."""
        start = self._file_offset(addr)
        return None if start is None else self.data[start:start + length]

    def cstring_at(self, addr):
        """The NUL-terminated string at addr, or None."""
        start = self._file_offset(addr)
        if start is None:
            return None
        end = self.data.index(b"\0", start)
        return self.data[start:end].decode()

    # ---- symbols ----

    def symbol_address(self, name):
        return self.addresses.get(name)

    def functions(self):
        """(address, size, name) of every function symbol, sorted by address."""
        return list(self._functions)

    def function_at(self, addr):
        """(name, offset) of the innermost function holding addr, or (None, None)."""
        holding = [f for f in self._functions if f[0] <= addr < f[0] + f[1]]
        if not holding:
            return None, None
        value, _, name = max(holding, key=lambda f: (f[0], f[2]))
        return name, addr - value

    def symbolize(self, addr):
        """"name" or "name+0xN" for the function or object holding addr, or
        a symbol at addr; None if nothing names it."""
        holding = [o for o in self._objects if o[0] <= addr < o[0] + max(o[1], 1)]
        if holding:
            value, _, name = max(holding, key=lambda o: (o[0], o[2]))
            return name if value == addr else f"{name}+0x{addr - value:x}"
        return next((n for n, v in self.addresses.items() if v == addr), None)

    def code_symbols(self):
        """(address, size, name) of every symbol defined in an executable
        section (functions and asm labels alike: what `nm` calls T or t),
        sorted by address, then name."""
        code = {i for i, s in enumerate(self.all_sections)
                if s["sh_flags"] & SHF_EXECINSTR and s["sh_flags"] & SHF_ALLOC}
        return sorted((s.value, s.size, s.name) for s in self.symbols
                      if isinstance(s.shndx, int) and s.shndx in code
                      and s.type not in ("STT_SECTION", "STT_FILE"))
