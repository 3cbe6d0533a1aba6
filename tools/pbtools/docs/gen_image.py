"""tools/gen-docs' blocks that read only the tree and its image, with no
boot: a command's output, a C function, a symbol's disassembly, a site of
an op and the ops table (tools/pvsites), the site count. The checkout and
its image are named here, once, for every gen_docs module."""

import json
import os
import re
import subprocess

from pbtools import paths
from pbtools.docs import prose_facts
from pbtools.elf.site_table import site_table  # the site block, as gdb's pb-site shows it too
from pbtools.paths import ROOT

IMAGE = paths.build("patchbay.elf")


def run(args):
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"gen-docs: {' '.join(args)} failed: {p.stderr.strip()}")
    return p.stdout


_pvsites = None


def pvsites_json():
    global _pvsites
    if _pvsites is None:
        _pvsites = json.loads(run(["tools/pvsites", IMAGE, "--json", "--disasm"]))
    return _pvsites


def gen_site(op, function=None):
    """One site of OP (the first, or the first in FUNCTION), as linked and
    as each platform patches it, labelled as pvsites labels them (the
    platform and the site form it takes)."""
    site = next((s for s in pvsites_json()
                 if s["op"] == op and function in (None, s["function"])), None)
    if site is None:
        raise SystemExit(f"gen-docs: site: no {op} site{' in ' + function if function else ''}")
    return "```\n" + "\n".join(site_table(site)) + "\n```\n"


def gen_sites_count():
    sites = pvsites_json()
    ops = {}
    for s in sites:
        ops[s["op"]] = ops.get(s["op"], 0) + 1
    return (f"{len(sites)} sites: " +
            ", ".join(f"{op} {n}" for op, n in sorted(ops.items(), key=lambda x: -x[1])) + "\n")


_facts = None


def image_facts():
    global _facts
    if _facts is None:
        try:
            _facts = prose_facts.Facts(IMAGE, pvsites_json())
        except prose_facts.FactsError as e:
            raise SystemExit(f"gen-docs: {e}")
    return _facts


def replacement_cell(templates):
    """What a form writes in place of the call, its padding left out:
    `bytes`: `asm`, for each distinct template."""
    shown = []
    for t in templates:
        insns = t.insns[len(t.padding()):]
        if not insns:
            shown.append("nothing (the site is one NOP)")
            continue
        raw = " ".join("rel32" if b is None else f"{b:02x}" for i in insns for b in i.raw)
        shown.append(f"`{raw.replace('rel32 rel32 rel32 rel32', 'rel32')}`: "
                     f"`{prose_facts.asm(insns)}`")
    return ", or ".join(shown)


def gen_ops_table():
    """Every site op of the image: its number, its site length and what
    each form writes there (tools/pvsites --disasm), padding left out."""
    facts = image_facts()
    out = ["| Op | # | Len | Native form (`native`, `xen-pvh`) | Xen form (`xen-pv`) |",
           "| --- | --- | --- | --- | --- |"]
    for number, op in enumerate(facts.op_names):
        forms = facts.templates.get(op, [])
        native = [t for t in forms if t.label == "native"]
        xen = [t for t in forms if t.label == "xen-pv"]
        lengths = ", ".join(map(str, sorted(facts.site_lengths({op})))) or "-"
        out.append(f"| `{op}` | {number} | {lengths} | {replacement_cell(native) or 'kept'} "
                   f"| {replacement_cell(xen) or 'the indirect call, kept'} |")
    return "\n".join(out) + "\n"


def gen_symbol(symbol):
    """objdump's disassembly of one symbol of the image."""
    out = run(["objdump", "-d", f"--disassemble={symbol}", IMAGE])
    body = out[out.index(f"<{symbol}>:"):].strip().splitlines()
    return "```\n" + "\n".join(l.rstrip() for l in body) + "\n```\n"


def gen_source(path, function):
    """A C function of the tree, whole, with the comment above it."""
    try:
        lines = open(os.path.join(ROOT, path)).read().splitlines()
    except OSError as e:
        raise SystemExit(f"gen-docs: source {path}: {e.strerror}")
    start = next((i for i, l in enumerate(lines)
                  if re.match(rf"^\S.*\b{re.escape(function)}\(", l)
                  and not l.rstrip().endswith(";")), None)
    if start is None:
        raise SystemExit(f"gen-docs: source: no definition of {function} in {path}")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    top = start
    if top > 0 and lines[top - 1].rstrip().endswith("*/"):
        while not lines[top - 1].lstrip().startswith("/*"):
            top -= 1
        top -= 1
    return "```c\n" + "\n".join(lines[top:end + 1]) + "\n```\n"


def gen_cmd(*argv):
    """A command's output, run in the checkout (e.g. readelf on the image)."""
    return "```\n" + run(list(argv)).rstrip() + "\n```\n"
