"""Byte claims of a page or passage (tools/prose_check.py's "bytes" kind):
hex byte runs, the instruction written beside them, padding, "A, then B",
a site's call and an address beside a symbol, each held to the image's
site forms and instructions (tools/pbtools/docs/prose_facts.py)."""

import re

from pbtools.docs import prose_facts
from pbtools.docs.prose_context import NUM, Claim, cells, number
from pbtools.docs.prose_facts import ANY, WILD

PLACEHOLDER = {"rel32": [WILD] * 4, "disp32": [WILD] * 4, "imm32": [WILD] * 4, "rel8": [WILD],
               "imm8": [WILD], "xx": [WILD], "...": [ANY], "…": [ANY]}
HEX_SPAN = re.compile(r"^(?:(?:[0-9A-Fa-f]{2}|rel32|disp32|imm32|rel8|imm8|xx|\.\.\.|…)"
                      r"(?: |$))+$")
CHAIN = re.compile(r"(`[^`\n]+`|\b(?:rel32|disp32|imm32|rel8|imm8)\b)(?:\s*\+\s*(`[^`\n]+`|"
                   r"\b(?:rel32|disp32|imm32|rel8|imm8)\b))*")
BARE_RUN = re.compile(r"(?<![\w`])(?:[0-9a-f]{2} ){1,}[0-9a-f]{2}(?:\s*\+\s*(?:rel32|disp32))?"
                      r"(?![\w`])")


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
