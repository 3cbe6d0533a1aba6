"""One call site as a compact table, a row per form: its label, its bytes,
and their disassembly on one line. docs/ shows it (tools/gen-docs's `site`
blocks), and gdb's pb-site (tools/gdb/patchbay.py) adds a row for the
bytes in memory now. A site is an entry of `tools/pvsites --json --disasm`."""

import re


def disasm_text(lines):
    """objdump's instruction lines (address, bytes, text) as one line."""
    return "; ".join(re.sub(r"\s+", " ", text.split("#")[0]).strip() + comment(text)
                     for _, _, text in lines)


def comment(text):
    """objdump's "# addr <symbol>" comment, shortened to the symbol."""
    m = re.search(r"#.*<([^>]+)>", text)
    return f" <{m.group(1)}>" if m else ""


def form_rows(site):
    """(label, hex bytes, disassembly) of the site as linked, then of each
    platform's form, labelled as pvsites labels them with the patcher's
    result (inline, call, or kept)."""
    rows = [("as linked", site["bytes"], disasm_text(site["disasm"]))]
    for b in site["backends"].values():
        rows.append((f"{b['label']} ({b['result']})", b["bytes"], disasm_text(b["disasm"])))
    return rows


def site_table(site, extra=()):
    """The table's lines: a heading naming the site, then form_rows(site)
    and the extra rows, aligned."""
    rows = form_rows(site) + list(extra)
    width = max(len(r[1] or "") for r in rows)
    label_width = max(len(r[0]) for r in rows)
    out = [f"site 0x{site['addr']:x}: {site['op']}, {site['len']} bytes, "
           f"in {site['function']}+0x{site['offset']:x}"]
    out += [f"  {label:<{label_width}}  {hexb or '':<{width}}  {text}".rstrip()
            for label, hexb, text in rows]
    return out
