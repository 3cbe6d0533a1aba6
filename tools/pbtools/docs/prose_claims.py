"""The kinds of claim tools/prose_check.py finds in a page or passage, and
how each is held to the image (tools/pbtools/docs/prose_facts.py); prose_check.py's
docstring gives the rule. check_unit() returns, for one paragraph, list
item, table row or heading, each claim the image contradicts and why;
the byte claims are checked in tools/pbtools/docs/prose_bytes.py, and what every
kind shares is tools/pbtools/docs/prose_context.py. exempt(claim) is asked first for
every claim found, so a claim exempted where it stands is never held to
the image."""

import os
import re

from pbtools.docs import prose_facts
from pbtools.docs.prose_bytes import (byte_claims, check_addresses, check_bytes, check_calls,
                                      check_sequences)
from pbtools.docs.prose_context import GENERATED, NUM, Claim, Context, cells, number
from pbtools.docs.prose_facts import ANY


# ---- lengths ----

LENGTH = re.compile(rf"\b(?P<list>(?:{NUM},\s+)*{NUM}(?:,?\s+and\s+{NUM})?)"
                    rf"(?:-byte\s+(?P<noun>[\w`]+(?:\s+call)?)"
                    rf"|\s+bytes\b(?!\s+(?:more|less|fewer)))",
                    re.I)
SITE_WORDS = re.compile(r"\bsites?\b|\bNOPs?\b|\bcall\b|hypercall", re.I)


def check_lengths(ctx, problems, claims, byte_spans):
    unit = ctx.unit
    for m in LENGTH.finditer(unit.text):
        a, b = ctx.sentence(m.start())
        sentence = unit.text[a:b]
        if not SITE_WORDS.search(sentence) and not ctx.named_ops(sentence):
            continue
        noun = (m.group("noun") or "").lower().strip("`")
        if noun in ("descriptor", "descriptors", "aligned", "text", "messages", "stub", "ring",
                    "slot"):
            continue
        claim = Claim(unit, m.start(), "lengths", m.group(0))
        if claims(claim):
            continue
        values = [number(w) for w in re.findall(NUM, m.group("list"), re.I)]
        why = length_problem(ctx, m, noun, values, byte_spans)
        if why:
            problems.append((claim, f"{m.group(0)}: {why}"))
    for m in re.finditer(rf"\bpadded\s+[^.;]*?\bto\s+({NUM})\b(?!\s*(?:%|KiB|MiB|bytes? of))",
                         unit.text, re.I):
        a, b = ctx.sentence(m.start())
        claim = Claim(unit, m.start(1), "lengths", f"padded to {m.group(1)}")
        if claims(claim) or not (ctx.named_ops(unit.text[a:b]) or
                                 re.search(r"\bsites?\b", unit.text[a:b])):
            continue
        n = number(m.group(1))
        lengths = ctx.facts.site_lengths(ctx.ops(m.start()) or ctx.facts.templates)
        if n not in lengths:
            problems.append((claim, f"padded to {m.group(1)}: the sites of "
                             f"{', '.join(sorted(ctx.ops(m.start()))) or 'every op'} are "
                             f"{', '.join(map(str, sorted(lengths)))} bytes long"))


def length_problem(ctx, m, noun, values, byte_spans):
    text = ctx.unit.text
    if re.search(r"`\s*[,:(]?\s*$", text[:m.start()]):
        prior = next((s for s in reversed(byte_spans) if s[1] <= m.start()
                      and re.fullmatch(r"[\s,:(]*", text[s[1]:m.start()])), None)
        if prior and len(values) == 1:
            n = len([t for t in prior[3] if t != ANY])
            return None if n == values[0] else f"those bytes are {n}"
        asm = re.search(r"`([^`]+)`\s*[,:(]?\s*$", text[:m.start()])
        if asm and len(values) == 1 and re.match(r"[a-z]{2,8}\b", asm.group(1)):
            n = prose_facts.assembled_length(asm.group(1))
            if n is not None:
                return None if n == values[0] else f"`{asm.group(1)}` assembles to {n} bytes"
    ops = ctx.ops(m.start()) or set(ctx.facts.templates)
    templates = ctx.templates(m.start())
    if noun.startswith("site") or noun == "call site":
        known = ctx.facts.site_lengths(ops)
        return None if all(v in known for v in values) else (
            f"{', '.join(sorted(ops))} sites are {', '.join(map(str, sorted(known)))} bytes long")
    elif noun.startswith("nop"):
        known = {len(i.raw) for t in templates for i in t.insns if i.is_nop()}
        what = "NOP lengths"
    elif noun and not re.fullmatch(r"nops?|call|indirect call|direct call|jmp|store|"
                                   r"instruction|replacement|form|padding|cli|sti", noun):
        return None
    else:
        known = {sum(len(i.raw) for i in t.insns[x:y]) for t in templates
                 for x in range(len(t.insns)) for y in range(x + 1, len(t.insns) + 1)}
        known |= ctx.facts.site_lengths(ops)
        what = "lengths of their sites and instruction runs"
    wrong = [v for v in values if v not in known]
    if not wrong:
        return None
    return (f"no {', '.join(sorted(ops)) if ctx.ops(m.start()) else 'site'} has "
            f"{', '.join(map(str, wrong))}: {what} are {', '.join(map(str, sorted(known)))}")


# ---- counts ----

def count_facts(facts):
    """(pattern, what it counts, the image's value, how it says so)."""
    mmu = facts.options.get("xen.mmu")
    modes = (len(mmu.choices), f"`xen.mmu` has {len(mmu.choices)} modes "
             f"({', '.join(mmu.choices)})") if mmu else None
    tables = sorted(x.name for x in facts.image.symbols
                    if re.fullmatch(r"pv_\w+_ops", x.name) and x.type == "STT_OBJECT")
    out = [(rf"\b({NUM})\s+(?:\S+\s+)?(?:pte|page-table)\s+modes\b", modes),
           (rf"\b({NUM})\s+ways\s+(?:of|to)\s+(?:updat\w*|writ\w*)\s+(?:a\s+)?"
            rf"(?:ptes?|page[- ]tables?)\b", modes),
           (rf"\b({NUM})\s+(?:paravirt\s+)?site\s+ops\b",
            (len(facts.op_names), f"the image has {len(facts.op_names)} site ops")),
           (rf"\b({NUM})\s+(?:ops\s+tables|tables\s+of\s+function\s+pointers)\b",
            (len(tables), f"the image has {len(tables)} ops tables ({', '.join(tables)})")),
           (rf"(?<!Xen )(?<!both )\b({NUM})\s+(?:platforms|backends)\b",
            (len(facts.platforms), f"the image has {len(facts.platforms)} platforms "
             f"({', '.join(sorted(facts.platforms))})"))]
    return [(p, f) for p, f in out if f]


def check_counts(ctx, problems, claims):
    unit = ctx.unit
    for pattern, (value, says) in count_facts(ctx.facts):
        for m in re.finditer(pattern, unit.text, re.I):
            claim = Claim(unit, m.start(), "counts", m.group(0))
            if not claims(claim) and number(m.group(1)) != value:
                problems.append((claim, f"{claim.text!r}: {says}"))
    for m in re.finditer(rf"\b({NUM})\s+(?:`([\w.]+)=?`\s+)?modes\b", unit.text, re.I):
        a, b = ctx.sentence(m.start())
        keys = m.group(2) and [m.group(2)] or sorted(
            {k for k in re.findall(r"`([\w.]+)=", unit.text[a:b]) if k in ctx.facts.options})
        opt = ctx.facts.options.get(keys[0]) if len(keys) == 1 else None
        if opt is None or not opt.choices or "pte" in m.group(0):
            continue
        claim = Claim(unit, m.start(), "counts", m.group(0))
        if not claims(claim) and number(m.group(1)) != len(opt.choices):
            problems.append((claim, f"{claim.text!r}: `{opt.key}` has {len(opt.choices)} modes "
                             f"({', '.join(opt.choices)})"))


# ---- options ----

def check_columns(ctx, problems, claims):
    """A table whose rows are ops (first cell `op`) and that has a Len
    column states each op's site length."""
    unit = ctx.unit
    if unit.kind != "row" or not unit.header:
        return
    row = cells(unit.text)
    op = re.fullmatch(r"`(\w+)`", row[0]) if row else None
    column = next((i for i, h in enumerate(unit.header) if h.lower() in ("len", "length")), None)
    if not op or op.group(1) not in ctx.facts.templates or column is None or column >= len(row):
        return
    lengths = ctx.facts.site_lengths({op.group(1)})
    claim = Claim(unit, 0, "lengths", f"{op.group(1)} length {row[column]}")
    if not claims(claim) and row[column].isdigit() and int(row[column]) not in lengths:
        problems.append((claim, f"{row[column]} bytes: each {op.group(1)} site is "
                         f"{', '.join(map(str, sorted(lengths)))} bytes long"))


def check_options(ctx, problems, claims):
    unit, options = ctx.unit, ctx.facts.options
    for m in re.finditer(r"`([a-z_][\w.]*)=((?:[\w-]+\\?\|)+[\w-]+)`", unit.text):
        opt = options.get(m.group(1))
        if opt is None or opt.kind != "OPT_ENUM":
            continue
        listed = m.group(2).replace("\\|", "|").split("|")
        claim = Claim(unit, m.start(), "options", m.group(0))
        unknown = [v for v in listed if v not in opt.choices]
        missing = [c for c in opt.choices if c not in listed and c != opt.default]
        if not claims(claim) and (unknown or missing):
            problems.append((claim, f"{m.group(0)}: `{opt.key}` takes {'|'.join(opt.choices)} "
                             f"(default {opt.default})"))
    header = unit.header or []
    if unit.kind == "row" and "Default" in header and "Option" in header[0]:
        row = cells(unit.text)
        key = re.match(r"`([\w.]+)", row[0]) if row else None
        opt = options.get(key.group(1)) if key else None
        if opt is not None and opt.default is not None and len(row) > unit.header.index("Default"):
            said = row[unit.header.index("Default")].strip("` ").replace(",", "")
            claim = Claim(unit, 0, "options", f"{key.group(1)} default {said}")
            if not claims(claim) and said != str(opt.default):
                problems.append((claim, f"the default of `{opt.key}` is {opt.default}, not {said}"))
    for m in re.finditer(r"\b(\d+)\.\.(\d+)\b", unit.text):
        a, b = ctx.sentence(m.start())
        where = cells(unit.text)[0] if unit.kind == "row" else unit.text[a:b]
        near = {k for k in re.findall(r"`([\w.]+)[=`]", where) if k in options}
        if len(near) != 1:
            continue
        opt = options[near.pop()]
        claim = Claim(unit, m.start(), "options", m.group(0))
        if not claims(claim) and opt.kind == "OPT_UINT" and \
                (int(m.group(1)), int(m.group(2))) != (opt.low, opt.high):
            problems.append((claim, f"{m.group(0)}: `{opt.key}` takes {opt.low}..{opt.high}"))


# ---- figures ----

FIGURE = re.compile(r"(?<![\w.,^-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
                    r"(?:(x)\b|(%)|\s+(instructions)\b)")


def figure_pool(paths):
    """Every number of the generated blocks of these pages."""
    pool = set()
    for path in paths:
        if os.path.exists(path):
            for block in GENERATED.findall(open(path).read()):
                pool |= {float(n.replace(",", "")) for n in
                         re.findall(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", block)}
    return pool


LISTED = re.compile(r"(?<![\w.,^-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
                    r"(?=\s+(?:in|for|under|as|with)\s)")


def figures(ctx):
    """The figure claims of a unit: "N instructions", "Nx", "N%", and in a
    sentence with an "N instructions", its other "N in ..."."""
    text, found = ctx.unit.text, {}
    for m in FIGURE.finditer(text):
        found[m.start()] = m
        if m.group(5):
            a, b = ctx.sentence(m.start())
            for n in LISTED.finditer(text, a, b):
                found.setdefault(n.start(), n)
    return [found[k] for k in sorted(found)]


def check_figures(ctx, problems, claims, pool):
    unit = ctx.unit
    if unit.kind == "code":
        return
    for m in figures(ctx):
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        about = re.search(r"\b(?:about|nearly|roughly|some)\s+$", unit.text[:m.start()])
        if re.search(r"\b(?:than|over|under|least|most|within|to|and|or)\s+$",
                     unit.text[:m.start()]) or \
                re.match(r"\s+or\s+(?:more|less|fewer)\b", unit.text[m.end():]):
            continue  # a bound or a range's end, not a figure
        slack = 0.05 * value if about else 0.5 * 10 ** -len((m.group(2) or ".")[1:])
        claim = Claim(unit, m.start(), "figures", m.group(0))
        if not claims(claim) and not any(abs(p - value) <= slack for p in pool):
            problems.append((claim, f"{m.group(0)}: no generated block of this page, README.md "
                             "or docs/benchmarks.md has this figure"))


# ---- terms ----

# An acronym or a register-like name (TLB, L1, CR3): the form of a word a
# reader must have defined. A file's name (README.md), a field (RFLAGS.IF)
# and a code span are not running text.
ACRONYM = re.compile(r"(?<![\w.#-])([A-Z][A-Z0-9]+)(?:e?s)?(?![\w]|\.\w|-\w)")


def check_terms(ctx, problems, claims, vocabulary):
    unit = ctx.unit
    if unit.kind == "code" or vocabulary is None:
        return
    text = re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), unit.text)
    for m in ACRONYM.finditer(text):
        if m.group(1).lower() in vocabulary:
            continue
        claim = Claim(unit, m.start(), "terms", m.group(1))
        if not claims(claim):
            problems.append((claim, f"{m.group(1)}: not a term of docs/glossary.md "
                             "nor a word it lists as known"))


# ---- one unit ----

def check_unit(unit, facts, pool, exempt, vocabulary=None):
    """(claim, why) for each claim of unit the image contradicts; pool is
    the figures of the generated blocks it may quote (figure_pool);
    vocabulary, the words the glossary defines or lists as known."""
    ctx = Context(facts, unit)
    found = []
    spans = byte_claims(unit, facts)
    for pos, end, text, tokens in spans:
        claim = Claim(unit, pos, "bytes", text)
        if not exempt(claim):
            found += [(claim, w) for w in check_bytes(ctx, pos, end, text, tokens)]
    check_lengths(ctx, found, exempt, spans)
    check_counts(ctx, found, exempt)
    check_columns(ctx, found, exempt)
    check_sequences(ctx, found, exempt)
    check_calls(ctx, found, exempt)
    check_addresses(ctx, found, exempt)
    check_options(ctx, found, exempt)
    check_figures(ctx, found, exempt, pool)
    check_terms(ctx, found, exempt, vocabulary)
    return [(c, re.sub(r"\s+", " ", why)) for c, why in found]
