"""`make help`: every target the Makefile and its included .mk files
document, with the first sentence of the comment above it, then the test
suite's groups (tests/manifest.py). Generated from those files each time,
so it cannot drift from them; a phony target without a comment is listed
as undocumented, for its author to mend."""

import importlib.util
import os
import re

from pbtools.paths import ROOT

TARGET = re.compile(r"^([a-z][a-z0-9-]*)\s*:(?!=)")
INCLUDE = re.compile(r"^-?include\s+(\S+\.mk)\s*$")


def makefiles():
    """The Makefile and the .mk files it includes, in its order."""
    files = ["Makefile"]
    with open(os.path.join(ROOT, "Makefile")) as f:
        for line in f:
            m = INCLUDE.match(line)
            if m:
                files.append(m.group(1))
    return files


def first_sentence(comment):
    text = " ".join(line.strip() for line in comment)
    m = re.match(r"(.{20,}?[.:;])(\s|$)", text)
    return (m.group(1) if m else text).rstrip(".:;")


def documented_targets():
    """(target, first sentence of its comment, file) for each target that
    starts a line, in file order; comments run down to the target."""
    found = []
    for name in makefiles():
        comment = []
        with open(os.path.join(ROOT, name)) as f:
            for line in f:
                if line.startswith("#"):
                    comment.append(line.lstrip("#").strip())
                    continue
                m = TARGET.match(line)
                if m and m.group(1) not in (t for t, _, _ in found):
                    found.append((m.group(1), first_sentence(comment) if comment else "", name))
                if not line.startswith("\t") and not line.startswith(".PHONY"):
                    comment = []
    return found


def load_manifest():
    """tests/manifest.py, read where it is: tests/ is not a package."""
    spec = importlib.util.spec_from_file_location(
        "manifest", os.path.join(ROOT, "tests", "manifest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    manifest = load_manifest()
    phony = set()
    with open(os.path.join(ROOT, "Makefile")) as f:
        text = f.read().replace("\\\n", " ")
    for m in re.finditer(r"^\.PHONY:(.*)$", text, re.MULTILINE):
        phony.update(m.group(1).split())
    targets = [t for t in documented_targets() if t[0] in phony]
    print("make targets (the Makefile's and its .mk files' own comments):")
    for target, what, _ in targets:
        print("  %-16s %s" % (target, what or "(undocumented)"))
    for suite, groups in manifest.SUITES.items():
        print("\n`make %s` groups (tests/manifest.py; one alone: make test-group G=NAME):" % suite
              if suite == "test" else "\n`make %s` groups:" % suite)
        for name, (lane, what, _) in groups.items():
            print("  %-16s %s" % (name, what))
    return 0
