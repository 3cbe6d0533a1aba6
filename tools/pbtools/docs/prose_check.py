"""tools/prose_check.py [FILE...]: the claims README.md, docs/*.md and the
tour's passages make by hand, checked against the image.

The generated blocks (tools/gen-docs) cannot drift; the prose around them
can. So every claim of these kinds, found by its form wherever it is written
(a new page or passage is covered the day it exists), is held to the image
(prose_facts.py beside this module) and the generated blocks; the checks are
prose_claims.py's (bytes: prose_bytes.py's):

- bytes: a code span of hex byte pairs (`0f 1f 00`, `65 c6 04 25` + disp32
  + `01`, `ff 15 xx xx xx xx`), or outside one a run of two or more pairs
  with a digit and a letter among them (ff 15 + rel32); rel32, disp32 and
  imm32 stand for four bytes, xx for one, ... for any run. They are bytes
  of a site form (as linked, or as a platform writes it) of the ops the
  sentence names (by name, by ops table, or by native instruction: `cli`),
  else the paragraph names, else of any site or hypercall site, or else
  instructions of the image. Bytes said to pad ("padded with `90`") are a
  site's padding, as linked next to the indirect call; an instruction
  written right beside bytes ("`fa`, `cli`") is what they decode to; "A,
  then B" is their order in some form; `call xen_pv_X` beside one op is a
  call its sites make; a torn site (the word "torn") may be one form's
  first byte and another's rest.
- lengths: "N bytes" or "N-byte NOUN" in a sentence about sites, NOPs,
  calls or hypercalls is the length of the bytes or the instruction
  written just before it, or else a site length of the ops in context
  (NOUN site, "padded to N", a table's Len column), the length of a NOP
  they hold (NOUN NOP), or of a run of their instructions.
- counts: "N pte modes" or "N ways to update a pte" (the choices of
  `xen.mmu`), "N modes" beside one option, "N site ops", "N ops tables",
  "N tables of function pointers", "N platforms" and "N backends".
- options: `KEY=a|b|...` names every choice of KEY but perhaps its
  default, and nothing else; an Option | Default table gives each
  option's default; "N..M" beside a single option is its range.
- figures: "N instructions", "Nx" and "N%" outside code (and, in a
  sentence with an "N instructions", "N in ..."): N appears in a generated
  block of the same page, README.md or docs/benchmarks.md ("about N": one
  within 5%). Bounds ("more than N") and ranges are not figures.
- addresses: 0x... inside the image, in a sentence naming a symbol or
  section in a code span, is that one's address.
- terms: an acronym or register-like word outside code (TLB, L1, CR3) is
  a term of docs/glossary.md (a heading or an `also:` name) or a word its
  `<!-- known: ... -->` list says a reader who knows C and page tables
  already has. tools/doclinks then holds its first use on a page to be a
  link to the entry.

A claim the check cannot verify is written as a generated block instead,
or exempted where it stands, right above its paragraph (for a tour
passage, on the line above the passage), naming the claims or a kind
(bytes, lengths, counts, options, figures, addresses, terms) and why:

    <!-- prose-check: exempt "`e6 80`": the worked example's op, in a copy of the tree -->
    /* prose-check: exempt figures: a recorded run, not repeatable */

An exemption that matches no claim, or gives no reason, fails too.
Failures are one line each, FILE:LINE: the claim: what the image says
instead; then "N passed, N failed" (pages, and the tour as one). Run alone
it needs build/patchbay.elf; `tools/gen-docs --check` runs it on every
page and the tour."""

import argparse
import os
import re
import sys

from pbtools import paths
from pbtools.docs import glossary
from pbtools.docs import prose_facts
from pbtools.docs import tour
from pbtools.docs.prose_claims import GENERATED, cells, check_unit, figure_pool
from pbtools.paths import ROOT


KINDS = ("bytes", "lengths", "counts", "options", "figures", "addresses", "terms")
EXEMPT = re.compile(r"prose-check: exempt (.*?)\s*(?:-->|\*/|$)")
STATS = {"claims": 0, "exempt": 0}  # of the last run


class Problem:
    def __init__(self, path, line, text):
        self.path, self.line, self.text = path, line, text

    def __str__(self):
        path = os.path.relpath(self.path, ROOT) if self.path.startswith(ROOT + os.sep) \
            else self.path
        return f"{path}:{self.line}: {self.text}"


class Unit:
    """A paragraph, list item, table row, heading or code block of a page,
    or a paragraph of a tour passage: its text, the line each character
    came from, and the exemptions written above it."""

    def __init__(self, path, kind, lines, exemptions=(), header=None):
        self.path, self.kind, self.header = path, kind, header
        # A link reads as its text; the padding keeps every offset's line.
        self.text = re.sub(r"\[([^\]\n]*)\]\([^)\s]*\)",
                           lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))),
                           "\n".join(t for _, t in lines))
        self.starts = []
        at = 0
        for number_, t in lines:
            self.starts.append((at, number_))
            at += len(t) + 1
        self.exemptions = exemptions

    def line_at(self, pos):
        return max(n for at, n in self.starts if at <= pos)


class Exemption:
    def __init__(self, path, line, spec):
        self.path, self.line = path, line
        m = re.match(r"((?:\"[^\"]+\"(?:,\s*)?)+|(?:" + "|".join(KINDS) + r"))[:\s]\s*(.*)", spec)
        self.claims = re.findall(r"\"([^\"]+)\"", m.group(1)) if m else []
        self.kind = m.group(1) if m and not self.claims else None
        self.reason = m.group(2).strip() if m else ""
        self.used = False

    def covers(self, claim):
        hit = (self.kind == claim.kind) or any(c in claim.text for c in self.claims)
        self.used |= hit
        return hit


# ---- reading pages and passages into units ----

def markdown_units(path, text):
    """The units of a Markdown page, generated blocks left out."""
    lines = GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n")
    units, block, pending, i = [], [], [], 0
    fence = None

    def flush():
        nonlocal block, pending
        if block:
            units.extend(block_units(path, block, pending))
            pending = []
        block = []

    while i < len(lines):
        line, number_ = lines[i], i + 1
        i += 1
        if fence is not None:
            if line.startswith("```"):
                units.append(Unit(path, "code", fence, pending))
                fence = None
            else:
                fence.append((number_, line))
            continue
        if line.startswith("```"):
            flush()
            fence = []
            continue
        m = EXEMPT.search(line)
        if m and line.lstrip().startswith("<!--"):
            flush()
            pending.append(Exemption(path, number_, m.group(1)))
            continue
        if not line.strip():
            flush()
            continue
        if line.lstrip().startswith("<!--"):
            continue
        block.append((number_, line))
    flush()
    return units


def block_units(path, block, exemptions):
    """One run of non-blank lines: a table (one unit a row), a list (one a
    item), an indented code block, or a paragraph."""
    first = block[0][1]
    if first.startswith("|"):
        rows = [(n, l) for n, l in block if not re.match(r"^\|[\s|:-]+\|$", l)]
        header = cells(rows[0][1])
        return [Unit(path, "row", [r], exemptions, header) for r in rows[1:]]
    if first.startswith("    ") and all(l.startswith("    ") for _, l in block):
        return [Unit(path, "code", block, exemptions)]
    if first.startswith("#"):
        return [Unit(path, "heading", block[:1], exemptions)] + (
            block_units(path, block[1:], exemptions) if block[1:] else [])
    units, item = [], []
    for n, l in block:
        if re.match(r"^\s*(?:[-*]|\d+\.)\s", l) and item:
            units.append(Unit(path, "item", item, exemptions))
            item = []
        item.append((n, l))
    units.append(Unit(path, "item" if re.match(r"^\s*(?:[-*]|\d+\.)\s", item[0][1]) else "para",
                      item, exemptions))
    return units


def tour_units():
    """Each passage's title and paragraphs, with the line of every line,
    and the exemptions on the lines above it."""
    units = []
    for rel in tour.source_files():
        path = os.path.join(tour.ROOT, rel)
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
        for i, l in enumerate(lines):
            m = tour.C_START.match(l) or tour.ASM_START.match(l)
            if not m:
                continue
            read = tour.asm_comment if tour.ASM_START.match(l) else tour.c_comment
            text, _ = read(lines, i, m.group(2).strip())
            exemptions, k = [], i - 1
            while k >= 0 and EXEMPT.search(lines[k]):
                exemptions.append(Exemption(path, k + 1, EXEMPT.search(lines[k]).group(1)))
                k -= 1
            units.append(Unit(path, "heading", [(i + 1, text[0])], exemptions))
            para = []
            for j, t in enumerate(text[1:], start=i + 2):
                if t.strip():
                    para.append((j, t))
                elif para:
                    units.append(Unit(path, "para", para, exemptions))
                    para = []
            if para:
                units.append(Unit(path, "para", para, exemptions))
    return units


# ---- the check ----

GLOSSARY = os.path.join(ROOT, "docs", "glossary.md")


def check_units(units, facts, pools, vocabulary=None):
    """The Problems of units: the claims the image contradicts, the words
    the glossary leaves undefined, and the exemptions that name no claim
    or give no reason. pools(path): the figures a page may quote;
    vocabulary: glossary.vocabulary(), by default docs/glossary.md's."""
    STATS.update(claims=0, exempt=0)
    if vocabulary is None:
        vocabulary = glossary.vocabulary(GLOSSARY)
    problems = []
    for unit in units:
        def exempt(claim, unit=unit):
            hit = any([e.covers(claim) for e in unit.exemptions])
            STATS["claims"] += 1
            STATS["exempt"] += hit
            return hit

        problems += [Problem(unit.path, unit.line_at(claim.pos), why)
                     for claim, why in check_unit(unit, facts, pools(unit.path), exempt, vocabulary)]
    seen = {}
    for unit in units:
        for e in unit.exemptions:
            seen.setdefault(id(e), e)
    for e in seen.values():
        if not e.reason:
            problems.append(Problem(e.path, e.line, "exemption without a reason"))
        elif not e.used:
            problems.append(Problem(e.path, e.line, "exemption matches no claim"))
    return problems


def default_pages():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))


def run(pages, facts, with_tour=True):
    """The Problems of pages, and of the tour's passages."""
    shared = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "benchmarks.md")]
    cache = {}

    def pools(path):
        if path not in cache:
            cache[path] = figure_pool(set(shared + ([path] if path.endswith(".md") else [])))
        return cache[path]

    units = []
    for page in pages:
        with open(page) as f:
            units += markdown_units(page, f.read())
    if with_tour:
        units += tour_units()
    return check_units(units, facts, pools)


def report(problems, pages, with_tour):
    for p in sorted(problems, key=lambda p: (p.path, p.line)):
        print(p)
    bad_pages = {p.path for p in problems if p.path.endswith(".md")}
    bad_tour = any(not p.path.endswith(".md") for p in problems)
    total = len(pages) + (1 if with_tour else 0)
    failed = len(bad_pages) + (1 if bad_tour else 0)
    print(f"prose: {len(pages)} pages{' and the tour' if with_tour else ''}: "
          f"{STATS['claims']} claims, {STATS['exempt']} exempt, {len(problems)} "
          f"problem{'s' if len(problems) != 1 else ''}")
    print(f"{total - failed} passed, {failed} failed")
    return failed


def main():
    ap = argparse.ArgumentParser(prog="tools/prose_check.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", metavar="FILE",
                    help="default: README.md, docs/*.md and the tour")
    ap.add_argument("--image", default=paths.build("patchbay.elf"))
    args = ap.parse_args()
    pages = [os.path.abspath(f) for f in args.files] or default_pages()
    missing = [p for p in pages if not os.path.isfile(p)]
    if missing:
        print(f"prose_check: no such file: {missing[0]}", file=sys.stderr)
        return 2
    try:
        facts = prose_facts.Facts(args.image)
    except prose_facts.FactsError as e:
        print(f"prose_check: {e}", file=sys.stderr)
        return 2
    with_tour = not args.files
    return 1 if report(run(pages, facts, with_tour), pages, with_tour) else 0
