"""The kinds of claim tools/prose_check.py finds in a page or passage, and
how each is held to the image (tools/prose_facts.py); prose_check.py's
docstring gives the rule. check_unit() returns, for one paragraph, list
item, table row or heading, each claim the image contradicts and why.
exempt(claim) is asked first for every claim found, so a claim exempted
where it stands is never held to the image."""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import prose_facts  # noqa: E402
from prose_facts import ANY, WILD  # noqa: E402

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]
NUM = r"(?:\d+|" + "|".join(WORDS) + r")"
GENERATED = re.compile(r"<!-- generated: .*? -->\n.*?<!-- end generated -->", re.S)
PLACEHOLDER = {"rel32": [WILD] * 4, "disp32": [WILD] * 4, "imm32": [WILD] * 4, "rel8": [WILD],
               "imm8": [WILD], "xx": [WILD], "...": [ANY], "…": [ANY]}
HEX_SPAN = re.compile(r"^(?:(?:[0-9A-Fa-f]{2}|rel32|disp32|imm32|rel8|imm8|xx|\.\.\.|…)"
                      r"(?: |$))+$")
CHAIN = re.compile(r"(`[^`\n]+`|\b(?:rel32|disp32|imm32|rel8|imm8)\b)(?:\s*\+\s*(`[^`\n]+`|"
                   r"\b(?:rel32|disp32|imm32|rel8|imm8)\b))*")
BARE_RUN = re.compile(r"(?<![\w`])(?:[0-9a-f]{2} ){1,}[0-9a-f]{2}(?:\s*\+\s*(?:rel32|disp32))?"
                      r"(?![\w`])")


def number(word):
    word = word.lower()
    return int(word) if word.isdigit() else WORDS.index(word)


def cells(row):
    """A Markdown table row's cells (a `\\|` inside one is not a border)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


class Claim:
    """One claim of a unit: where it starts, its kind (prose_check.KINDS)
    and its text as written, white space folded."""

    def __init__(self, unit, pos, kind, text):
        self.unit, self.pos, self.kind = unit, pos, kind
        self.text = re.sub(r"\s+", " ", text)


# ---- context: the ops a sentence speaks of ----

def sentences(text):
    """(start, end) of each sentence of a unit's text."""
    out, start = [], 0
    for m in re.finditer(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvol)[.!?](?=\s+[A-Z`(*\[])", text):
        out.append((start, m.end()))
        start = m.end()
    out.append((start, len(text)))
    return out


class Context:
    """What the checks of one unit need: the facts, and for any position
    the ops its sentence (else its unit) names."""

    def __init__(self, facts, unit):
        self.facts, self.unit = facts, unit
        self.spans = sentences(unit.text)
        self.unit_ops = self.named_ops(unit.text)

    def sentence(self, pos):
        return next(((a, b) for a, b in self.spans if a <= pos < b), self.spans[-1])

    def named_ops(self, text):
        ops = {op for op in self.facts.templates if re.search(rf"\b{op}\b", text)}
        for table, members in self.facts.tables.items():
            if re.search(rf"\b{table}\b", text):
                ops |= members
        for m in re.finditer(r"`([a-z]+)`", text):
            ops |= self.native_ops(m.group(1))
        return ops

    def native_ops(self, mnemonic):
        """Ops whose native form has this distinctive instruction (`cli`)."""
        if mnemonic in ("mov", "nop", "nopl", "nopw", "jmp", "int3", "xor", "push", "pop", "test",
                        "je", "call"):
            return set()
        return {op for op, ts in self.facts.templates.items() for t in ts
                if t.label == "native" and any(i.mnemonic == mnemonic for i in t.insns)}

    def ops(self, pos):
        a, b = self.sentence(pos)
        return self.named_ops(self.unit.text[a:b]) or self.unit_ops

    def templates(self, pos, hypercalls=None):
        ops = self.ops(pos)
        a, b = self.sentence(pos)
        if hypercalls is None:
            hypercalls = not ops or "hypercall" in self.unit.text[a:b].lower()
        chosen = [t for op in (ops or self.facts.templates) for t in self.facts.templates[op]]
        return chosen + (self.facts.hypercall_templates if hypercalls else [])


# ---- bytes ----

def byte_tokens(spec):
    """A byte claim's tokens, or None if spec is not one."""
    tokens = []
    for word in spec.replace("+", " ").split():
        if word.lower() in PLACEHOLDER:
            tokens += PLACEHOLDER[word.lower()]
        elif re.fullmatch(r"(?:0x)?[0-9A-Fa-f]{2}", word):
            tokens.append(int(word[-2:], 16))
        else:
            return None
    return tokens if any(isinstance(t, int) for t in tokens) else None


def byte_claims(unit, facts):
    """(pos, end, text, tokens) of every byte claim of a unit."""
    words = {c for o in facts.options.values() for c in o.choices}
    found = []
    for m in CHAIN.finditer(unit.text):
        parts = re.findall(r"`([^`\n]+)`|\b(rel32|disp32|imm32|rel8|imm8)\b", m.group(0))
        spans = [a or b for a, b in parts]
        if not all(HEX_SPAN.match(s) for s in spans):
            continue
        if len(spans) == 1 and spans[0] in words:
            continue  # an option's value (`fault=de`), not a byte
        tokens = byte_tokens(" ".join(spans))
        if tokens:
            found.append((m.start(), m.end(), m.group(0), tokens))
    code = [(m.start(), m.end()) for m in re.finditer(r"`[^`\n]+`", unit.text)]
    for m in BARE_RUN.finditer(unit.text):
        if not any(a <= m.start() < b for a, b in code):
            run = m.group(0)
            pairs = re.findall(r"[0-9a-f]{2}", run)
            if any(c.isdigit() for p in pairs for c in p) and any(c.isalpha() for p in pairs
                                                                 for c in p):
                found.append((m.start(), m.end(), run, byte_tokens(run)))
    padded = re.finditer(r"padd\w*\s+with\s+[^.;]*?(`0x[0-9A-Fa-f]{2}`)", unit.text)
    found += [(m.start(1), m.end(1), m.group(1), byte_tokens(m.group(1).strip("`")))
              for m in padded]
    return found


def decoded(tokens):
    """The mnemonics objdump gives the claim's bytes (placeholders as 0)."""
    data = [0 if t == WILD else t for t in tokens if t != ANY]
    return [t.split()[0] for _, t in prose_facts.disassemble(data) if t]


def same_mnemonic(written, got):
    """Whether a mnemonic as written names what objdump decoded: movb is
    mov with its size, jz is je, NOP any NOP."""
    aliases = {"jz": "je", "jnz": "jne", "popfq": "popf", "pushfq": "pushf"}
    written, got = aliases.get(written, written), aliases.get(got, got)
    if written == "nop":
        return got.startswith("nop") or got in ("xchg", "data16")
    return got in (written, written[:-1]) or written == got[:-1]


def written_instruction(facts, text, end):
    """The mnemonics of the instruction written right after a byte claim
    (`fa`, `cli`; `e6 80` (`out %al, $0x80`); `90` (NOP)), or None."""
    m = re.match(r"\s*(?:,|\(|is\b|:|=)?\s*(?:`([^`]+)`|(NOPs?)\b)", text[end:])
    if not m:
        return None
    if m.group(2):
        return ["nop"]
    parts = [p.strip() for p in re.split(r";|\n", m.group(1))
             if p.strip() and not re.fullmatch(r"\d+:", p.strip())]
    mnemonics = [p.split()[0].lower() for p in parts]
    if not all(w in facts.mnemonics or w[:-1] in facts.mnemonics for w in mnemonics):
        return None
    return mnemonics


def decode_problem(facts, text, end, tokens):
    """Why the instruction written beside the bytes is not theirs, or None."""
    written = written_instruction(facts, text, end)
    if not written or ANY in tokens:
        return None
    got = decoded(tokens)
    if "nop" not in written:
        got = [g for g in got if not g.startswith("nop")]
    if len(got) == len(written) and all(same_mnemonic(w, g) for w, g in zip(written, got)):
        return None
    return f"they decode to `{'; '.join(got)}`, not `{'; '.join(written)}`"


def check_bytes(ctx, pos, end, text, tokens):
    """Why a byte claim is wrong, as a list of reasons."""
    unit, why = ctx.unit, []
    problem = decode_problem(ctx.facts, unit.text, end, tokens)
    if problem:
        why.append(f"{text}: {problem}")
    a, _ = ctx.sentence(pos)
    if re.search(r"padd\w*\s+with", unit.text[a:pos]):
        return why + check_padding(ctx, pos, text, tokens, unit.text[a:pos])
    templates = ctx.templates(pos)
    if any(prose_facts.contains(t.raw, tokens) for t in templates):
        return why
    if "torn" in unit.text and torn(ctx, pos, tokens):
        return why
    ops = sorted(ctx.ops(pos))
    if not ops and ctx.facts.in_image_text(tokens):
        return why
    if ops:
        shown = "; ".join(sorted({f"{t.op} {t.label}: {t.shown()}" for t in templates}))
        return why + [f"{text}: not in a site of {', '.join(ops)}; the image has {shown}"]
    return why + [f"{text}: in no site form and no instruction of the image"]


def check_padding(ctx, pos, text, tokens, before):
    """"padded with BYTES": a padding of the ops' sites; next to the
    indirect call (`ff 15`, call *), the padding as linked."""
    linked = bool(re.search(r"ff 15|call \*|indirect call", before, re.I))
    paddings = {tuple(b for i in t.padding() for b in i.raw) for t in ctx.templates(pos, False)
                if t.linked or not linked}
    paddings.discard(())
    if any(list(p) == tokens or list(p[:len(tokens)]) == tokens for p in paddings):
        return []
    shown = ", ".join(sorted(" ".join(f"{b:02x}" for b in p) for p in paddings))
    return [f"{text}: no {'linked ' if linked else ''}site of "
            f"{', '.join(sorted(ctx.ops(pos))) or 'any op'} is padded with it; "
            f"they pad with {shown}"]


def torn(ctx, pos, tokens):
    for op in ctx.ops(pos) or ctx.facts.templates:
        forms = ctx.facts.templates[op]
        for x in forms:
            for y in forms:
                if x is not y and prose_facts.matches_at(tokens, x.raw[:1] + y.raw[1:], 0):
                    return True
    return False


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


SEQUENCE = re.compile(rf"(`[0-9A-Fa-f ]+`|\b{NUM}-byte\s+NOP\b)[^.;]*?\bthen\s+(?:one\s+|an?\s+)?"
                      rf"(`[0-9A-Fa-f ]+`|\b{NUM}-byte\s+NOP\b)", re.I)


def sequence_item(spec):
    """A predicate on an instruction list at index i: the item starts there."""
    if spec.startswith("`"):
        tokens = byte_tokens(spec.strip("`"))
        return lambda insns, i: tokens is not None and prose_facts.matches_at(
            tokens, [b for x in insns[i:] for b in x.raw], 0)
    n = number(spec.split("-")[0])
    return lambda insns, i: insns[i].is_nop() and len(insns[i].raw) == n


def check_sequences(ctx, problems, claims):
    """"A, then B": some form of the ops in context has A before B."""
    for m in SEQUENCE.finditer(ctx.unit.text):
        first, second = sequence_item(m.group(1)), sequence_item(m.group(2))
        ok = any(first(t.insns, i) and any(second(t.insns, j) for j in range(i + 1, len(t.insns)))
                 for t in ctx.templates(m.start(), False) for i in range(len(t.insns)))
        claim = Claim(ctx.unit, m.start(), "bytes", m.group(0))
        if not claims(claim) and not ok:
            problems.append((claim, f"{m.group(1)} then {m.group(2)}: no site of "
                             f"{', '.join(sorted(ctx.ops(m.start()))) or 'any op'} has them in "
                             "that order"))


def check_calls(ctx, problems, claims):
    """`call xen_pv_X` beside one op: that op's sites call it."""
    for m in re.finditer(r"`call\s+((?:xen|native)_pv_\w+)`", ctx.unit.text):
        a, b = ctx.sentence(m.start())
        where = cells(ctx.unit.text)[0] if ctx.unit.kind == "row" else ctx.unit.text[a:b]
        ops = ctx.named_ops(where)
        if len(ops) != 1:
            continue
        op = ops.pop()
        calls = sorted({re.search(r"<([^>+]+)", i.text).group(1) for t in ctx.facts.templates[op]
                        for i in t.insns if i.mnemonic == "call" and "<" in i.text})
        claim = Claim(ctx.unit, m.start(), "bytes", m.group(0))
        if not claims(claim) and m.group(1) not in calls:
            forms = "; ".join(sorted({f"{t.label}: `{prose_facts.asm(t.insns)}`"
                                      for t in ctx.facts.templates[op] if not t.linked}))
            problems.append((claim, f"{m.group(0)}: no {op} site calls {m.group(1)}; "
                             f"they hold {forms}"))


def check_addresses(ctx, problems, claims):
    """An address of the image beside a symbol or section it names is that
    symbol's or section's address."""
    image = ctx.facts.image
    low = min(s["sh_addr"] for s in image.sections if s["sh_flags"] & 2)
    for m in re.finditer(r"\b0x([0-9a-f]{5,8})\b", ctx.unit.text):
        addr = int(m.group(1), 16)
        if image.section_at(addr) is None and addr != low:
            continue
        a, b = ctx.sentence(m.start())
        names = set(re.findall(r"`([.\w]+)(?:\(\))?`", ctx.unit.text[a:b]))
        known = {n: image.symbol_address(n) if image.symbol_address(n) is not None
                 else (image.section(n)["sh_addr"] if image.section(n) else None) for n in names}
        known = {n: v for n, v in known.items() if v is not None}
        claim = Claim(ctx.unit, m.start(), "addresses", m.group(0))
        if known and not claims(claim) and addr not in known.values():
            problems.append((claim, f"{m.group(0)}: " + ", ".join(
                f"`{n}` is at 0x{v:x}" for n, v in sorted(known.items()))))


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
