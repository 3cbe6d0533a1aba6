"""The benchmark figures README.md and docs/ quote, for tools/explore's
benchmark pages: each page shows what the pages say of its benchmarks,
labelled with where they say it, whether or not a run was made here.

Quoted figures are the ones nobody types: the blocks tools/gen-docs
generates from runs (`<!-- generated: KIND ... -->`) that name a benchmark
(`` `NAME` `` outside code, or a `bench: name=NAME` line of a boot), and
docs/lifecycle-run.json, the recorded run docs/lifecycle.md quotes. A new
page or block is picked up by that rule alone.
"""

import os
import re

from pbtools.explore.sites import ROOT

DOCS = os.path.join(ROOT, "docs")
BLOCK = re.compile(r"^<!-- generated: (\S+)(.*?) -->\n(.*?)^<!-- end generated -->", re.M | re.S)
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
HEADING = re.compile(r"^(#{1,6}) +(.*?)[ #]*$", re.M)


def pages():
    """[(path relative to the repository, text)]: README.md, then docs/*.md."""
    names = ["README.md"] + sorted("docs/" + n for n in os.listdir(DOCS) if n.endswith(".md"))
    out = []
    for name in names:
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            out.append((name, f.read()))
    return out


def heading_before(text, at):
    """The title of the last heading before offset at, outside fenced code."""
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text[:at])
    titles = HEADING.findall(prose)
    return titles[-1][1] if titles else None


def named(text, names):
    """The benchmarks of names that text quotes: `NAME` outside fenced
    code, or name=NAME anywhere (a benchmark's result line)."""
    prose = FENCE.sub("", text)
    return {n for n in names
            if "`%s`" % n in prose or re.search(r"\bname=%s\b" % re.escape(n), text)}


def only_rows(text, names):
    """text with each markdown table cut to its heading and the rows that
    name one of names; anything else as it is."""
    out = []
    for line in text.splitlines():
        table_row = line.startswith("|") and not re.match(r"^\|[\s:|-]+\|\s*$", line)
        if table_row and out and out[-1].startswith("|") and not named(line, names):
            continue  # a body row of another group's benchmark
        out.append(line)
    return "\n".join(out).rstrip() + "\n"


def generated_blocks():
    """Every generated block of README.md and docs/: dicts of path, line,
    heading (the section it is in, or None), kind and text."""
    blocks = []
    for path, text in pages():
        for m in BLOCK.finditer(text):
            blocks.append(dict(path=path, line=text.count("\n", 0, m.start()) + 1,
                               heading=heading_before(text, m.start()), kind=m.group(1),
                               text=m.group(3)))
    return blocks


def quotes(names, blocks):
    """[(text, [block, ...])]: what the generated blocks quote of the
    benchmarks in names, tables cut to their rows; a text quoted on several
    pages once, with every place it is quoted."""
    found = {}
    for block in blocks:
        if named(block["text"], names):
            found.setdefault(only_rows(block["text"], names), []).append(block)
    return list(found.items())


def conditions(blocks):
    """README.md's bench-conditions block: what it says of the generated
    figures' runs, or None."""
    return next((b["text"].strip() for b in blocks
                 if b["kind"] == "bench-conditions" and b["path"] == "README.md"), None)


def mentions(names):
    """[(path, heading)]: the sections of README.md and docs/ whose own
    prose (outside generated blocks and fenced code) names one of names
    in backticks, in the order of the pages."""
    if not names:
        return []
    word = re.compile("`(?:%s)`" % "|".join(re.escape(n) for n in sorted(names)))
    found = []
    for path, text in pages():
        prose = BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), prose)
        for m in word.finditer(prose):
            place = (path, heading_before(prose, m.start()))
            if place not in found:
                found.append(place)
    return found
