"""What tools/explore shows about each paravirt call site, read from the
image and the source: the sites themselves, where in the source each one
is, and which pages explain its op.

The sites come from tools/pvsites (imported, so the site shows the very
descriptors, pvemit bytes and disassembly `pvsites --json --disasm`
prints), the source locations from one `addr2line -i` run, the op tables
from pv/op_list.h. Bad input raises InputError, which tools/explore
reports as one line.
"""

import os
import re
import subprocess

from pbtools.docs.markdown_html import esc
from pbtools.paths import ROOT


class InputError(Exception):
    """Bad input, reported as one line with exit status 2."""


def shown(path):
    """A path as the pages name it: relative to the repository when inside it."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return os.path.abspath(path) if rel.startswith("..") else rel


def read_sites(image_path):
    """Every site with its bytes and disassembly per platform (pvsites --json --disasm)."""
    from pbtools.elf import pvsites
    try:
        image = pvsites.open_image(image_path)
        sites = pvsites.read_sites(image)
        pvsites.add_disasm(image, sites)
    except pvsites.ToolError as e:
        raise InputError(str(e)) from e
    return sites


def platforms():
    """{platform: the site form it takes}, in pvsites' column order (from
    pvemit's table, which tests/pv/test_platform_sites.py checks against
    the kernel)."""
    from pbtools.elf import pvsites
    try:
        return pvsites.platform_forms()
    except pvsites.ToolError as e:
        raise InputError(str(e)) from e


def op_tables():
    """{op: table} from the PV_SITES_<table> lists of pv/op_list.h; the
    order of the dict is the op order."""
    with open(os.path.join(ROOT, "pv", "op_list.h")) as f:
        text = f.read()
    return {op: table for table, op in re.findall(r"X\(a, (\w+), (\w+)\)", text)}


def addr2line(image_path, addrs):
    """{addr: [(function, path, line)]}: the inline chain, innermost (the
    pv/ wrapper) first, from one addr2line run for all sites."""
    try:
        out = subprocess.run(["addr2line", "-a", "-i", "-f", "-e", image_path]
                             + ["0x%x" % a for a in addrs],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise InputError("addr2line failed: %s" % e) from e
    chains, current = {}, None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            current = chains.setdefault(int(lines[i], 16), [])
            i += 1
            continue
        m = re.match(r"(.*):(\d+)", lines[i + 1] if i + 1 < len(lines) else "")
        path = shown(os.path.normpath(m.group(1))) if m and m.group(1) != "??" else None
        current.append((lines[i], path, int(m.group(2)) if m and path else None))
        i += 2
    return chains


_source_cache = {}


def source_lines(path):
    """The lines of a repository file (read once), or [] if it cannot be read."""
    if path not in _source_cache:
        try:
            with open(os.path.join(ROOT, path), errors="replace") as f:
                _source_cache[path] = f.read().splitlines()
        except OSError:
            _source_cache[path] = []
    return _source_cache[path]


def source_line(path, number):
    """The text of line number of path (repository-relative), or ''."""
    lines = source_lines(path)
    return lines[number - 1].strip() if number and 0 < number <= len(lines) else ""


def split_chain(chain):
    """(wrappers, caller, outer): the frames in the wrapper's own file, the
    first frame outside it (whose line calls the wrapper), and the frames
    it is inlined into."""
    if not chain:
        return [], None, []
    wrapper_file = chain[0][1]
    n = 1
    while n < len(chain) and chain[n][1] == wrapper_file:
        n += 1
    if n == len(chain):
        return chain[:-1], chain[-1], []
    return chain[:n], chain[n], chain[n + 1:]


# The page that explains each table's mechanism, and the heading on it
# (None: the top of the page). Every site also links to pv-sites.md#ops.
MECHANISM = {
    "irq": ("xen.md", "Events"),
    "mmu": ("mm.md", None),
    "cpu": ("pv-ops.md", None),
    "time": ("xen.md", "Time"),
    "machine": ("pv-ops.md", None),
    "patch": ("pv-sites.md", "Patching rules"),
}


def read_links(op, ctx):
    """An op's links: the ops table in pv-sites.md, its table's mechanism page, the tour."""
    table = ctx["tables"].get(op, "?")
    links = ['<a href="docs/pv-sites.html#ops">op table</a>']
    if table in MECHANISM:
        page_name, heading = MECHANISM[table]
        anchor = ctx["doc_ids"].get(page_name, {}).get(heading)
        href = "docs/%s.html" % page_name[:-3] + ("#" + anchor if anchor else "")
        links.append('<a href="%s">%s%s</a>' % (esc(href), esc(page_name),
                                                ": " + esc(heading) if anchor else ""))
    for p in ctx["tour"].get(op, []):
        links.append('<a href="tour.html#tour-%d" title="%s">tour %d</a>'
                     % (p.number, esc(p.title), p.number))
    return " · ".join(links)


def tour_links(passages, ops):
    """{op: [passage]}: the passages whose text names the op, and those in
    the file of its registry line (#define PV_OP_DEF_<op>, pv/op_list.h)."""
    files = {p.path: "\n".join(source_lines(p.path)) for p in passages}
    found = {}
    for op in ops:
        word = re.compile(r"\b%s\b" % re.escape(op))
        registry = re.compile(r"^#define PV_OP_DEF_%s\b" % re.escape(op), re.M)
        found[op] = [p for p in passages
                     if word.search(p.title + "\n" + p.text) or registry.search(files[p.path])]
    return found
