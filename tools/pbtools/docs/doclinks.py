"""tools/doclinks [--check | --fix] [FILE...]

Checks the links of README.md and docs/*.md (default: all of them):

- every glossary term (docs/glossary.md, see tools/pbtools/docs/glossary.py)
  a page uses is a link to its entry the first time the page uses it;
- every relative link resolves: the file exists and a #fragment names a
  heading (GitHub's anchor for it) or an id in that file.

--check (the default) prints one line per problem, `FILE:LINE: ...`, then
"N passed, N failed" (pages), and exits 1 if any page failed; `make test`
runs it. --fix links the first use of each term itself, and then checks.
Exit status 2 for bad arguments."""

import argparse
import os
import re
import sys

from pbtools.docs import glossary
from pbtools.paths import ROOT

GLOSSARY = os.path.join(ROOT, "docs", "glossary.md")
ID = re.compile(r"""\bid=["']([^"']+)["']""")


def default_pages():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, n) for n in os.listdir(docs)
        if n.endswith(".md") and os.path.join(docs, n) != GLOSSARY)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def anchors(path):
    """The fragments a link into path may name."""
    text = open(path).read()
    mask = glossary.prose_mask(text.replace("#", "x"))  # headings count here
    found = {glossary.slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)
             if mask[m.start()]}
    return found | set(ID.findall(text))


def broken_links(path, text):
    """Relative links of a page that lead nowhere, as (offset, why)."""
    mask = glossary.prose_mask(text)
    for m in glossary.LINK.finditer(text):
        target = m.group(2)
        if not mask[m.start()] or re.match(r"^[a-z]+:", target):
            continue  # in code, or an absolute URL
        file_part, _, fragment = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part \
            else path
        if not os.path.exists(dest):
            yield m.start(), f"link to {target}: no such file"
        elif fragment and dest.endswith(".md") and fragment not in anchors(dest):
            yield m.start(), f"link to {target}: no heading or id '{fragment}' there"


def check_page(path, terms):
    text = open(path).read()
    rel = os.path.relpath(path, ROOT)
    target = os.path.relpath(GLOSSARY, os.path.dirname(path))
    problems = [(u.start, f"first use of '{u.term.name}' is not a link to {target}#"
                 f"{u.term.anchor}") for u in glossary.first_unlinked(text, terms, target).values()]
    problems += list(broken_links(path, text))
    for pos, why in sorted(problems):
        print(f"{rel}:{line_of(text, pos)}: {why}")
    return not problems


def fix_page(path, terms):
    text = open(path).read()
    target = os.path.relpath(GLOSSARY, os.path.dirname(path))
    new = glossary.link_first_uses(text, terms, target)
    if new != text:
        with open(path, "w") as f:
            f.write(new)
        print(f"doclinks: {os.path.relpath(path, ROOT)}: linked first uses")


def main():
    ap = argparse.ArgumentParser(prog="tools/doclinks", description=__doc__.strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="only report (the default)")
    mode.add_argument("--fix", action="store_true", help="link first uses, then check")
    ap.add_argument("files", nargs="*", metavar="FILE")
    args = ap.parse_args()
    pages = [os.path.abspath(f) for f in args.files] or default_pages()
    missing = [p for p in pages if not os.path.isfile(p)]
    if missing:
        print(f"doclinks: no such file: {missing[0]}", file=sys.stderr)
        return 2
    terms = glossary.load(GLOSSARY)
    if args.fix:
        for p in pages:
            fix_page(p, terms)
    failed = sum(not check_page(p, terms) for p in pages)
    print(f"{len(pages) - failed} passed, {failed} failed")
    return 1 if failed else 0
