"""Reading the kernel image for the Python tools: sections, symbols and the
bytes at an address, through Debian's python3-pyelftools (tools/setup
installs it)."""

import sys

try:
    from elftools.elf.elffile import ELFFile
except ImportError:  # a python3 other than Debian's: look where Debian put it
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from elftools.elf.elffile import ELFFile
    except ImportError:
        sys.exit("tools: python3-pyelftools is missing; run tools/setup "
                 "(or apt-get install python3-pyelftools)")


class Image:
    """An ELF image read once into memory."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        import io
        self.elf = ELFFile(io.BytesIO(self.data))
        self.sections = [s for s in self.elf.iter_sections() if s.name]
        symtab = self.elf.get_section_by_name(".symtab")
        self.symbols = list(symtab.iter_symbols()) if symtab else []
        self.addresses = {s.name: s["st_value"] for s in self.symbols if s.name}

    def section(self, name):
        return self.elf.get_section_by_name(name)

    def section_at(self, addr):
        """The allocated section holding addr, or None."""
        for s in self.sections:
            if s["sh_flags"] & 2 and s["sh_addr"] <= addr < s["sh_addr"] + s["sh_size"]:
                return s
        return None

    def bytes_at(self, addr, length):
        """length bytes of the file image at addr; None outside file-backed sections."""
        s = self.section_at(addr)
        if s is None or s["sh_type"] == "SHT_NOBITS":
            return None
        start = s["sh_offset"] + addr - s["sh_addr"]
        return self.data[start:start + length]

    def cstring_at(self, addr):
        """The NUL-terminated string at addr, or None."""
        s = self.section_at(addr)
        if s is None or s["sh_type"] == "SHT_NOBITS":
            return None
        start = s["sh_offset"] + addr - s["sh_addr"]
        end = self.data.index(b"\0", start)
        return self.data[start:end].decode()

    def symbol_address(self, name):
        return self.addresses.get(name)

    def functions(self):
        """(address, size, name) of every function symbol, sorted by address."""
        return sorted((s["st_value"], s["st_size"], s.name) for s in self.symbols
                      if s["st_info"]["type"] == "STT_FUNC" and s.name)
