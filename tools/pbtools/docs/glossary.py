"""The glossary's terms, and where a markdown page first uses each one.

docs/glossary.md has one `### term` heading per term, optionally followed
by `<!-- also: name, name -->` listing other spellings. A term's anchor is
the heading as GitHub makes it (lowercase, punctuation dropped, spaces as
dashes), so links work on GitHub, in an editor's preview and in the HTML
that tools/explore renders.

A use is a name of a term in running text: not in a heading, a fenced
block or an HTML comment, and inside an inline code span only when the
span is exactly the name (`vcpu_info` is a use, `xen_vcpu->arch` is not).
Where names overlap ("call site" and "site") the longest one wins. A use
inside a link belongs to the term the link points at; inside a link to
anything else it does not count.

    terms = load(path)                  # [Term]
    vocabulary(path)                    # every name a page may use undefined
    uses(text, terms)                   # [Use], in page order
    first_unlinked(text, terms, target) # {term: Use} whose first use is not a link
    link_first_uses(text, terms, target) -> text with those uses linked
"""

import re

HEADING = re.compile(r"^### (.+)$")
ALSO = re.compile(r"^<!-- also: (.+) -->$")
KNOWN = re.compile(r"<!-- known: (.+?) -->", re.S)
WORD = r"[A-Za-z0-9_]"
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
CODE = re.compile(r"`((?:[^`\n]|\n(?!\n))+)`")  # a span may wrap, not cross a paragraph


class Term:
    def __init__(self, name, aliases):
        self.name, self.names = name, [name] + aliases
        self.anchor = slug(name)


class Use:
    def __init__(self, term, start, end, link_target, code_span):
        self.term, self.start, self.end = term, start, end
        self.link_target = link_target  # the URL of the link it sits in, or None
        self.code_span = code_span  # (start, end) of the `code` it is, or None


def slug(heading):
    """GitHub's anchor for a heading."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


def load(path):
    terms, lines = [], open(path).read().splitlines()
    for i, line in enumerate(lines):
        m = HEADING.match(line)
        if m:
            also = ALSO.match(lines[i + 1]) if i + 1 < len(lines) else None
            aliases = [a.strip() for a in also.group(1).split(",")] if also else []
            terms.append(Term(m.group(1).strip(), aliases))
    return terms


def vocabulary(path):
    """Lowercased: the names of the glossary's terms, and the words its
    `<!-- known: ... -->` comments list as a reader's own (CPU, QEMU)."""
    text = open(path).read()
    names = {n.lower() for t in load(path) for n in t.names}
    for m in KNOWN.finditer(text):
        names |= {w.strip().lower() for w in m.group(1).split(",") if w.strip()}
    return names


# What is not running text: fenced and indented code, headings, HTML
# comments, and whatever tools/gen-docs writes between its markers.
NOT_PROSE = (r"(?ms)^```.*?^```[^\n]*$", r"(?m)^(?:    |\t).*$", r"(?m)^#.*$",
             r"(?s)<!-- generated:.*?<!-- end generated -->", r"(?s)<!--.*?-->")


def prose_mask(text):
    """For each character, whether it is running text (see the module)."""
    mask = [True] * len(text)
    for pattern in NOT_PROSE:
        for m in re.finditer(pattern, text):
            mask[m.start():m.end()] = [False] * (m.end() - m.start())
    return mask


def name_pattern(terms):
    names = sorted({n for t in terms for n in t.names}, key=len, reverse=True)
    by_name = {n.lower(): t for t in terms for n in t.names}
    alternation = "|".join(re.escape(n) for n in names)
    # A plural is a use too: "hypercalls" of "hypercall".
    return re.compile(rf"(?<!{WORD})(?P<name>{alternation})(?:e?s)?(?!{WORD})", re.I), by_name


def spans(pattern, text):
    return [(m.start(), m.end(), m) for m in pattern.finditer(text)]


def enclosing(spans_, pos):
    for s in spans_:
        if s[0] <= pos < s[1]:
            return s
    return None


def uses(text, terms):
    pattern, by_name = name_pattern(terms)
    mask = prose_mask(text)
    links, codes = spans(LINK, text), spans(CODE, text)
    found = []
    for m in pattern.finditer(text):
        if not mask[m.start()]:
            continue
        code = enclosing(codes, m.start())
        if code and code[2].group(1) != m.group("name"):
            continue
        link = enclosing(links, m.start())
        found.append(Use(by_name[m.group("name").lower()], m.start(), m.end(),
                         link[2].group(2) if link else None,
                         (code[0], code[1]) if code else None))
    return found


def links_to(use, target):
    return use.link_target is not None and use.link_target == f"{target}#{use.term.anchor}"


def first_unlinked(text, terms, target):
    """Terms whose first use is not a link to their entry at target (the
    glossary's path relative to the page), with that use."""
    first, wrong = {}, {}
    for u in uses(text, terms):
        if u.link_target is not None and not u.link_target.startswith(target + "#"):
            continue  # a link to elsewhere: not a use of the glossary's word
        if u.link_target is not None and not links_to(u, target):
            continue  # a link to another entry: counts for that entry only
        if u.term.name not in first:
            first[u.term.name] = u
            if not links_to(u, target):
                wrong[u.term.name] = u
    return wrong


def link_first_uses(text, terms, target):
    """The text with each first unlinked use made a link (last first, so
    earlier offsets stay valid)."""
    for u in sorted(first_unlinked(text, terms, target).values(), key=lambda u: -u.start):
        start, end = u.code_span or (u.start, u.end)
        text = f"{text[:start]}[{text[start:end]}]({target}#{u.term.anchor}){text[end:]}"
    return text
