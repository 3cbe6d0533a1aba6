"""pvsites: list the paravirt call sites recorded in a patchbay image.

    tools/pvsites IMAGE [--json] [--disasm]

Reads the image's .pv_sites descriptors (layout: pv/site.h, docs/pv-sites.md)
and names, for each site, its address, op, length, registers it may clobber,
the function holding it (from .symtab) and its section. --disasm adds the
site's bytes as linked and what each platform (native, xen-pv, xen-pvh)
writes there, and in which site form, disassembled with objdump; the bytes
come from tools/pvemit, built from the kernel's own patcher sources with
`make -s build/host/pvemit`, and so does the table of which platform takes
which form (pvemit --list-platforms).

The op names come from pvemit --list-ops, i.e. from the kernel's own
sources, so the two cannot drift apart. The ELF file is read with
tools/pbtools/elf/image.py (pyelftools).
"""

import argparse
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from pbtools.elf.image import Image, ImageError
from pbtools.paths import HOST_BUILD, ROOT, host_program

PVEMIT, PVEMIT_PATH = host_program("pvemit")

DESCRIPTOR = struct.Struct("<QHBBI")  # addr, op, len, clobbers, reserved (pv/site.h)
CLOBBER_NAMES = {0: "rax"}  # PV_CLOBBER_* bit -> register


class ToolError(Exception):
    """A problem with the input, reported as one line."""


def open_image(path):
    try:
        return Image(path)
    except ImageError as e:
        raise ToolError(str(e)) from e


_op_names = None


def op_names():
    """The op names in op-number order, as the kernel's own sources name
    them (pvemit --list-ops)."""
    global _op_names
    if _op_names is None:
        try:
            out = subprocess.run([build_pvemit(), "--list-ops"], check=True,
                                 capture_output=True, text=True).stdout
        except subprocess.CalledProcessError as e:
            raise ToolError(f"pvemit --list-ops failed: {e.stderr.strip()}") from e
        numbered = [line.split() for line in out.splitlines() if line.strip()]
        if [int(n) for n, _ in numbered] != list(range(len(numbered))):
            raise ToolError(f"pvemit --list-ops: ops not numbered 0..N-1:\n{out}")
        _op_names = [name for _, name in numbered]
    return _op_names


def descriptor_bytes(image, section=".pv_sites"):
    """The raw contents of a descriptor section (.pv_sites, or the PARAVIRT=n
    build's .pv_native_sites)."""
    raw = image.section_data(section)
    if raw is not None:
        return raw
    if section == ".pv_sites":
        start = image.symbol_address("__pv_sites_start")
        end = image.symbol_address("__pv_sites_end")
        if image.section(".pv_native_sites") is None and start is not None and start == end:
            return b""  # a paravirt build with no sites: the linker drops the empty section
        raise ToolError(f"{image.path}: no .pv_sites section: the image was built without "
                        "paravirt (PARAVIRT=n)")
    raise ToolError(f"{image.path}: no {section} section")


def descriptors(image, section=".pv_sites"):
    """The descriptors as (addr, op, len, clobbers, reserved) tuples."""
    raw = descriptor_bytes(image, section)
    if len(raw) % DESCRIPTOR.size:
        raise ToolError(f"{image.path}: {section} is {len(raw)} bytes, not a multiple of the "
                        f"{DESCRIPTOR.size}-byte descriptor")
    return [DESCRIPTOR.unpack_from(raw, i) for i in range(0, len(raw), DESCRIPTOR.size)]


def read_sites(image):
    found = descriptors(image)
    names = op_names() if found else []
    sites = []
    for i, (addr, op, length, clobbers, reserved) in enumerate(found):
        function, offset = image.function_at(addr)
        holder = image.section_at(addr)
        sites.append({
            "addr": addr,
            "op": names[op] if op < len(names) else f"unknown({op})",
            "len": length,
            "clobbers": [CLOBBER_NAMES.get(b, f"bit{b}") for b in range(8) if clobbers >> b & 1],
            "function": function,
            "offset": offset,
            "section": holder.name if holder else None,
        })
        if reserved or op >= len(names):
            print(f"pvsites: warning: descriptor {i} at 0x{addr:x} is malformed "
                  f"(op {op}, reserved 0x{reserved:x})", file=sys.stderr)
    return sites


def where(site):
    if site["function"] is None:
        return "?"
    return f"{site['function']}+0x{site['offset']:x}"


def table_row(site):
    return [f"0x{site['addr']:x}", site["op"], str(site["len"]),
            ",".join(site["clobbers"]) or "-", where(site), site["section"] or "?"]


def print_row(cells, widths):
    aligned = [c.rjust(w) if i == 2 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
    print("  ".join(aligned).rstrip())


# ---- --disasm ----

def objdump_lines(args):
    """objdump's instruction lines as (addr, hex bytes, text)."""
    try:
        out = subprocess.run(["objdump", "-w"] + args, check=True, capture_output=True,
                             text=True).stdout
    except FileNotFoundError as e:
        raise ToolError("--disasm needs objdump (binutils)") from e
    except subprocess.CalledProcessError as e:
        raise ToolError(f"objdump failed: {e.stderr.strip()}") from e
    lines = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t([0-9a-f ]+)\t(.*)", line)
        if not m:
            continue
        addr, raw, text = int(m.group(1), 16), m.group(2).strip(), m.group(3).strip()
        if text == "int3" and lines and lines[-1][2].startswith("int3"):
            # a padding jmp's skipped int3s, as one line
            prev_addr, prev_raw, _ = lines[-1]
            n = len(prev_raw.split()) + 1
            lines[-1] = (prev_addr, prev_raw + " cc", f"int3 x{n}")
            continue
        lines.append((addr, raw, text))
    return lines


def disasm_image(image, addr, length):
    return objdump_lines(["-d", f"--start-address=0x{addr:x}",
                          f"--stop-address=0x{addr + length:x}", image])


def disasm_bytes(data, addr):
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(data)
        f.flush()
        return objdump_lines(["-D", "-b", "binary", "-mi386:x86-64",
                              f"--adjust-vma=0x{addr:x}", f.name])


def annotate(image, lines):
    """Name the targets in objdump's raw-binary output, as it does for the image."""
    def named(m):
        name = image.symbolize(int(m.group(2), 16))
        return f"{m.group(0)} <{name}>" if name else m.group(0)

    target = re.compile(r"(^(?:call|jmp)\s+|# )0x([0-9a-f]+)$")
    return [(a, b, target.sub(named, text)) for a, b, text in lines]


def build_pvemit():
    # BUILD= names the path below, whatever PARAVIRT says.
    cmd = ["make", "-s", "-C", ROOT, "BUILD=" + HOST_BUILD]
    if os.environ.get("PVSITES_MAKEFILE"):  # e.g. tools/tools.mk on its own
        cmd += ["-f", os.environ["PVSITES_MAKEFILE"]]
    try:
        subprocess.run(cmd + [PVEMIT], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as e:
        raise ToolError(f"could not build {PVEMIT}: {e.stderr.strip() or e.stdout.strip()}") from e
    return PVEMIT_PATH


def xen_entry_names():
    """What Xen's inline templates call (pvemit --list-entries), each the
    image's symbol xen_pv_<name>."""
    try:
        out = subprocess.run([build_pvemit(), "--list-entries"], check=True,
                             capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise ToolError(f"pvemit --list-entries failed: {e.stderr.strip()}") from e
    return out.split()


def xen_context(image, names):
    """pvemit's Xen options from the image's symbols; [] when it has none."""
    args = []
    if image.symbol_address("xen_shared_info_page") is not None:
        args += ["--xen"]
    for name in list(names) + xen_entry_names():
        target = image.symbol_address(f"xen_pv_{name}")
        if target is not None:
            args += ["--xen-direct", f"{name}=0x{target:x}"]
    return args


_platforms = None


def platforms():
    """{platform: [pvemit form, ...]}, in pvemit's order: which site forms
    each platform writes, its default first (pvemit --list-platforms)."""
    global _platforms
    if _platforms is None:
        try:
            out = subprocess.run([build_pvemit(), "--list-platforms"], check=True,
                                 capture_output=True, text=True).stdout
        except subprocess.CalledProcessError as e:
            raise ToolError(f"pvemit --list-platforms failed: {e.stderr.strip()}") from e
        _platforms = {line.split()[0]: line.split()[1:] for line in out.splitlines()
                      if line.strip()}
    return _platforms


def backend_bytes(image, sites):
    """{addr: {platform: {pvemit form: (result, bytes or None)}}} from
    pvemit; a platform whose form needs the image's Xen context, which it
    lacks, is left out."""
    names = op_names()
    xen_args = xen_context(image, names)
    known = [s for s in sites if s["op"] in names]
    stdin = "".join(f"0x{s['addr']:x} {s['op']} {s['len']}\n" for s in known)
    try:
        out = subprocess.run([build_pvemit()] + xen_args, input=stdin, check=True,
                             capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise ToolError(f"pvemit failed: {e.stderr.strip()}") from e
    result = {}
    for line in out.splitlines():
        addr, platform, form, outcome, hexbytes = line.split()
        data = None if hexbytes == "-" else bytes.fromhex(hexbytes)
        result.setdefault(int(addr, 16), {}).setdefault(platform, {})[form] = (outcome, data)
    return result


# pvemit's forms as (the patch backend's name, as the boot's "pv: NAME ops"
# line says it, and the restore_fl template, named where a platform's two
# native forms write different bytes).
FORMS = {"native": ("native", "push/popf"), "native-condsti": ("native", "condsti"),
         "xen": ("xen", None)}


def split_form(form):
    """(backend name, restore_fl template) of a pvemit form."""
    return FORMS.get(form, (form, form))


def shown_forms(platform, variants):
    """[(key, pvemit form, variant or None)]: a platform's forms to show,
    both restore_fl templates only where they differ."""
    forms = platforms()[platform]
    if len({variants.get(f) for f in forms}) == 1:
        return [(platform, forms[0], None)]
    return [(f"{platform} ({split_form(f)[1]})", f, split_form(f)[1]) for f in forms]


def platform_forms():
    """{platform: the site form it takes} (the backend's name, "native" or
    "xen"), from pvemit's table."""
    return {p: split_form(forms[0])[0] for p, forms in platforms().items()}


def label(entry):
    """What --disasm says before a platform's bytes, e.g. "xen-pvh: native
    form": the platform, and the site form it takes, which two platforms
    may share."""
    variant = f" ({entry['variant']})" if entry["variant"] else ""
    return f"{entry['platform']}: {entry['form']} form{variant}"


KEPT_REASONS = {
    "kept-no-template": "no replacement",
    "kept-too-long": "the replacement does not fit the site",
    "rejected": "the descriptor is invalid",
}


def disasm_site(image, site, variants):
    """The --disasm details of one site, as data (also what --json shows)."""
    original = image.bytes_at(site["addr"], site["len"])
    detail = {
        "bytes": original.hex(" ") if original else None,
        "disasm": [list(i) for i in disasm_image(image.path, site["addr"], site["len"])],
        "backends": {},
    }
    for platform, forms in platforms().items():
        of_platform = variants.get(platform)
        if of_platform is None:  # pvemit had no Xen context for it
            entry = {"platform": platform, "form": split_form(forms[0])[0],
                     "variant": None, "result": None, "note": "context symbols not in image"}
            detail["backends"][platform] = dict(entry, label=label(entry))
            continue
        for key, form, variant in shown_forms(platform, of_platform):
            outcome, data = of_platform.get(form, ("rejected", None))
            entry = {"platform": platform, "form": split_form(form)[0],
                     "variant": variant, "result": outcome,
                     "bytes": data.hex(" ") if data else None, "disasm": []}
            if data:
                entry["disasm"] = [list(i) for i in
                                   annotate(image, disasm_bytes(data, site["addr"]))]
            elif outcome == "kept-no-template" and form == "xen":
                entry["note"] = f"keeps the indirect call (no xen_pv_{site['op']} in image)"
            else:
                entry["note"] = f"keeps the indirect call ({KEPT_REASONS.get(outcome, outcome)})"
            detail["backends"][key] = dict(entry, label=label(entry))
    return detail


LABEL_WIDTH = len("xen-pvh: native form (push/popf)") + 2  # the longest label


def print_disasm(detail):
    def instructions(lines):
        for addr, hexbytes, text in lines:
            print(f"        {addr:x}:  {hexbytes:<30} {text}")

    print(f"    {'as linked':<{LABEL_WIDTH}}{detail['bytes'] or '(no file bytes)'}")
    instructions(detail["disasm"])
    for entry in detail["backends"].values():
        if entry.get("bytes"):
            print(f"    {entry['label']:<{LABEL_WIDTH}}{entry['bytes']}")
            instructions(entry["disasm"])
        elif entry["result"] is None:
            print(f"    {entry['platform']}: {entry['note']}")
        else:
            print(f"    {entry['label']:<{LABEL_WIDTH}}{entry['note']}")


def add_disasm(image, sites):
    variants = backend_bytes(image, sites)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        details = pool.map(lambda s: disasm_site(image, s, variants.get(s["addr"], {})), sites)
        for site, detail in zip(sites, details):
            site.update(detail)


# ---- output ----

HEADER = ["ADDR", "OP", "LEN", "CLOBBERS", "FUNCTION", "SECTION"]


def print_table(sites, disasm):
    rows = [table_row(s) for s in sites]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(HEADER)]
    print_row(HEADER, widths)
    for site, row in zip(sites, rows):
        print_row(row, widths)
        if disasm:
            print_disasm(site)
    print(f"{len(sites)} site{'' if len(sites) == 1 else 's'}")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `pvsites ... | head` ends quietly
    parser = argparse.ArgumentParser(description="List the paravirt call sites in an image.")
    parser.add_argument("image")
    parser.add_argument("--json", action="store_true", help="a JSON list of sites")
    parser.add_argument("--disasm", action="store_true",
                        help="bytes and disassembly: as linked, and per platform")
    args = parser.parse_args()
    try:
        image = open_image(args.image)
        sites = read_sites(image)
        if args.disasm:
            add_disasm(image, sites)
    except ToolError as e:
        print(f"pvsites: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(sites, indent=2))
    else:
        print_table(sites, args.disasm)
    return 0
