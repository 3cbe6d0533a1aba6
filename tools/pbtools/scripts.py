"""Lists the tree's scripts of one language, by extension or shebang, for
the linters `make check` runs (shellcheck, pyflakes3):

  tools/scripts.py shell|python

A tool without an extension (tools/run, tools/bench, ...) is found by its
shebang; sourced shell libraries (*.sh without one) by their extension."""

import os
import subprocess
import sys

from pbtools.paths import ROOT

SHEBANG = {"shell": ("bash", "/bin/sh"), "python": ("python",)}
EXTENSION = {"shell": ".sh", "python": ".py"}


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return [p for p in out.splitlines() if os.path.isfile(os.path.join(ROOT, p))]


def language(path):
    """'shell', 'python' or None."""
    for lang, ext in EXTENSION.items():
        if path.endswith(ext):
            return lang
    try:
        with open(os.path.join(ROOT, path), "rb") as f:
            first = f.readline(200).decode(errors="replace")
    except OSError:
        return None
    if first.startswith("#!"):
        for lang, words in SHEBANG.items():
            if any(w in first for w in words):
                return lang
    return None


def main(argv):
    if len(argv) != 1 or argv[0] not in SHEBANG:
        print("scripts: usage: tools/scripts.py shell|python", file=sys.stderr)
        return 2
    for path in tracked():
        if language(path) == argv[0]:
            print(path)
    return 0
