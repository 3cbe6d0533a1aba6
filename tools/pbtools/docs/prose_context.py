"""What every kind of claim tools/pbtools/docs/prose_claims.py checks shares: number
words, a table row's cells, a claim, and the context of a unit (its
sentences, and the ops each names)."""

import re

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]
NUM = r"(?:\d+|" + "|".join(WORDS) + r")"
GENERATED = re.compile(r"<!-- generated: .*? -->\n.*?<!-- end generated -->", re.S)


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
