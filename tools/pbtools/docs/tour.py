"""tools/tour [--check] [-o build/tour.md]

Extracts the guided tour from the source. A passage is a comment that
starts with "Tour N: Title" at the place it describes:

    /* Tour 40: A call site and its descriptor.
     * ... text ... */                       (C, headers, linker.ld)
    ; Tour 10: ... text ...                  (nasm; each line starts with ';')

The tour is the passages in number order. Numbers are any distinct
positive integers: leaving gaps (10, 20, 30, ...) lets a passage be put
between two others without renumbering the rest. Each passage is written to
build/tour.md with its file:line and the code it sits on:

- C: the definition the comment precedes, whole: a function or struct up to
  its closing `}` at column 0, a `#define` with its continuation lines, and
  any further definitions that follow without a blank line between (a
  group of related structs or macros). A passage inside a function body
  shows the rest of that function, up to its closing `}`.
- nasm: the code up to the next blank line.

Either is cut at a cap (marked "...") and at the next passage.
--check only verifies: no number is used twice, every number is positive,
and every `identifier` a passage names in backquotes still exists in the
source."""

import argparse
import os
import re
import sys

from pbtools import paths
from pbtools.docs import glossary
from pbtools.paths import ROOT

SOURCE_DIRS = ["boot", "arch", "pv", "xen", "mm", "kernel", "bench"]
SOURCE_EXT = (".c", ".h", ".asm", ".inc")
EXTRA_FILES = ["linker.ld"]
C_CODE_LINES = 120  # a long function, not a whole file
ASM_CODE_LINES = 40
C_START = re.compile(r"^\s*/\*\s*Tour (\d+):\s*(.*)$")
ASM_START = re.compile(r"^\s*;\s*Tour (\d+):\s*(.*)$")
IDENT = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?`")


class Passage:
    def __init__(self, number, title, path, line, text, code):
        self.number, self.title, self.path, self.line = number, title, path, line
        self.text, self.code = text, code


def source_files():
    for d in SOURCE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            for n in sorted(names):
                if n.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, n), ROOT)
    yield from (f for f in EXTRA_FILES if os.path.exists(os.path.join(ROOT, f)))


def c_comment(lines, i, first):
    """The comment's text from line i (the Tour line) and the index after it."""
    text = [first]
    if "*/" in lines[i]:
        text[0] = first.split("*/")[0].strip()
        return text, i + 1
    i += 1
    while i < len(lines):
        body = re.sub(r"^\s*\*?\s?", "", lines[i].rstrip())
        if "*/" in lines[i]:
            tail = body.split("*/")[0].strip()
            if tail:
                text.append(tail)
            return text, i + 1
        text.append(body)
        i += 1
    raise SystemExit("tour: unterminated comment")


def asm_comment(lines, i, first):
    text = [first]
    i += 1
    while i < len(lines) and re.match(r"^\s*;", lines[i]):
        text.append(re.sub(r"^\s*;\s?", "", lines[i].rstrip()))
        i += 1
    return text, i


def is_passage(line):
    return bool(C_START.match(line) or ASM_START.match(line))


def truncated(code, marker, cap):
    return code[:cap] + [marker] if len(code) > cap else code


def asm_code_after(lines, i):
    """The code after a nasm passage, up to the blank line that follows it."""
    code = []
    while i < len(lines) and len(code) <= ASM_CODE_LINES:
        l = lines[i].rstrip()
        if is_passage(l) or (not l.strip() and code):
            break
        if l.strip():
            code.append(l)
        i += 1
    return truncated(code, "    ; ...", ASM_CODE_LINES)


def opens_block(line):
    """Whether a line starts the body of a function, struct or initializer."""
    code = re.sub(r"//.*$|/\*.*?\*/", "", line).rstrip()
    return code == "{" or (code.endswith("{") and not code.startswith("#"))


def c_code_after(lines, i, inside):
    """The definitions after a C passage (see the module's docstring).
    inside: the passage is indented, i.e. sits in a function body."""
    code, in_body = [], inside
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and len(code) <= C_CODE_LINES:
        l = lines[i].rstrip()
        if is_passage(l):
            break
        if not l.strip() and not in_body:
            break
        code.append(l)
        if not in_body and opens_block(l):
            in_body = True
        elif in_body and l.startswith("}"):
            in_body = False
        i += 1
    while code and not code[-1].strip():
        code.pop()
    return truncated(code, "    /* ... */", C_CODE_LINES)


def passages():
    found = []
    for path in source_files():
        with open(os.path.join(ROOT, path), errors="replace") as f:
            lines = f.read().splitlines()
        for i, l in enumerate(lines):
            m = C_START.match(l) or ASM_START.match(l)
            if not m:
                continue
            if ASM_START.match(l):
                text, after = asm_comment(lines, i, m.group(2).strip())
                code = asm_code_after(lines, after)
            else:
                text, after = c_comment(lines, i, m.group(2).strip())
                code = c_code_after(lines, after, inside=l[:1].isspace())
            found.append(Passage(int(m.group(1)), text[0], path, i + 1,
                                 "\n".join(text[1:]).strip(), code))
    return sorted(found, key=lambda p: (p.number, p.path))


def defined_names():
    """Every identifier-like word in the kernel's source, tour passages left out."""
    words = set()
    for path in source_files():
        with open(os.path.join(ROOT, path), errors="replace") as f:
            words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", strip_tour(f.read())))
    return words


def strip_tour(text):
    """The text without tour passages, so a passage cannot vouch for itself."""
    text = re.sub(r"/\*\s*Tour \d+:.*?\*/", "", text, flags=re.S)
    return re.sub(r"^\s*; Tour \d+:.*(?:\n\s*;.*)*", "", text, flags=re.M)


def problems(ps):
    errs = []
    numbers = [p.number for p in ps]
    for n in sorted(set(numbers)):
        if numbers.count(n) > 1:
            where = ", ".join(f"{p.path}:{p.line}" for p in ps if p.number == n)
            errs.append(f"tour: passage {n} appears {numbers.count(n)} times ({where})")
    for p in ps:
        if p.number < 1:
            errs.append(f"tour: passage {p.number} ({p.path}:{p.line}): numbers start at 1")
    names = defined_names()
    for p in ps:
        for ident in IDENT.findall(p.title + "\n" + p.text):
            if ident not in names:
                errs.append(f"tour: passage {p.number} ({p.path}:{p.line}) names "
                            f"`{ident}`, which no longer exists")
    if not ps:
        errs.append("tour: no passages found")
    return errs


def render(ps, output):
    """The tour as markdown; the first use of each glossary term links to
    its entry, as on every page of docs/."""
    start = os.path.relpath(os.path.join(ROOT, "docs", "start.md"), os.path.dirname(output))
    out = ["# A guided tour of patchbay", "",
           "Generated by `make tour` from the numbered `Tour N:` comments in the "
           "source; read it in order. Each passage sits on the code it describes. "
           f"If paravirtualization is new to you, read [docs/start.md]({start}) first.", ""]
    for p in ps:
        out += [f"## {p.number}. {p.title}", "", f"`{p.path}:{p.line}`", ""]
        if p.text:
            out += [p.text, ""]
        if p.code:
            lang = "nasm" if p.path.endswith((".asm", ".inc")) else "c"
            out += [f"```{lang}"] + p.code + ["```", ""]
    text = "\n".join(out)
    gloss = os.path.join(ROOT, "docs", "glossary.md")
    if not os.path.exists(gloss):
        return text
    return glossary.link_first_uses(text, glossary.load(gloss),
                                    os.path.relpath(gloss, os.path.dirname(output)))


def main():
    ap = argparse.ArgumentParser(description="Extract the guided tour from the source.")
    ap.add_argument("--check", action="store_true", help="only check numbering and names")
    ap.add_argument("-o", "--output", help="default: $BUILD/tour.md")
    ap.add_argument("--root", help="the source tree (default: this checkout)")
    args = ap.parse_args()
    global ROOT
    if args.root:
        ROOT = os.path.abspath(args.root)
    args.output = args.output or paths.build("tour.md")
    ps = passages()
    errs = problems(ps)
    for e in errs:
        print(e, file=sys.stderr)
    if args.check:
        print(f"tour: {len(ps)} passages, {len(errs)} problems")
        print(f"{1 if not errs else 0} passed, {1 if errs else 0} failed")
        return 1 if errs else 0
    if errs:
        return 1
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(render(ps, args.output))
    print(f"tour: {len(ps)} passages -> {os.path.relpath(args.output, ROOT)}")
    return 0
