#!/usr/bin/env python3
"""The commands docs/README.md's five short paths quote, run where they are
cheap (no Xen, no Linux: a native boot of a few seconds, or a tool that
boots nothing), each output compared with what its page shows:

- `tools/pvsites IMAGE --disasm`: every row of start.md's site block (its
  bytes, as linked and per platform) is in the listing of that site.
- `tools/run -- fault=cli` (start.md, on Q1's path): the lines start.md
  quotes for it, in order, "..." standing for the rest of a line.
- `tools/run --disk FILE --disk-new 4M -- disk=on` (Q5): the line shapes
  its comment names, `PASS, then disk-check: ...`, in that order.

A quoted command the test neither runs nor declares too dear fails, so a
new path's command is not left unchecked by accident. Each boot has a
time-out. `pytest-3 tests/tools/test_try_it.py --image PATH` runs them on
another image (default build/patchbay.elf)."""

import os
import re
import shlex
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DOCS = os.path.join(ROOT, "docs")
BOOT_TIMEOUT = 120
# Doors that boot Xen or Linux: minutes each, left to the boot tests.
DEAR = ("--xen", "--domu", "--linux", "--net")
# A boot's test: its boot's time-out and more, for a free CPU on a loaded machine.
BOOTS = pytest.mark.timeout(BOOT_TIMEOUT * 5)


def page(name):
    with open(os.path.join(DOCS, name)) as f:
        return f.read()


def path_commands():
    """(command, comment) of each indented line of the five paths."""
    text = page("README.md")
    section = text.split("## Five questions, five short paths", 1)[1].split("\n## ", 1)[0]
    found = []
    for line in section.splitlines():
        if line.startswith("    ") and line.strip():
            cmd, _, comment = line.strip().partition("#")
            found.append((cmd.strip(), comment.strip()))
    return found


def run(argv, timeout):
    p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout + 30)
    return p.returncode, p.stdout


def shown_lines(text, command):
    """The backquoted console lines the paragraph about command quotes."""
    para = next((p for p in re.split(r"\n\s*\n", text) if command in p), "")
    spans = [re.sub(r"\s+", " ", s) for s in re.findall(r"`([^`]+)`", para)]
    return [s for s in spans if re.match(r"^[a-z0-9_-]+: ", s)]


def pattern_of(shown):
    return "^" + re.escape(shown).replace(re.escape("..."), ".*") + "$"


def in_order(patterns, output):
    at = 0
    for p in patterns:
        m = re.compile(p, re.M).search(output, at)
        if not m:
            return p
        at = m.end()
    return None


def check_pvsites(cmd, _comment, image, _tmp):
    text = page("start.md")
    block = re.search(r"<!-- generated: site .*? -->\n```\n(.*?)```", text, re.S).group(1)
    site = re.match(r"site (0x[0-9a-f]+):", block).group(1)
    rows = re.findall(r"^  (as linked|[a-z-]+(?=:)).*?\s{2,}((?:[0-9a-f]{2} )+[0-9a-f]{2})", block,
                      re.M)
    status, out = run([image if a == "build/patchbay.elf" else a for a in shlex.split(cmd)], 60)
    listing = out.split("\n" + site + " ", 1)[1].split("\n0x", 1)[0] if site in out else ""
    missing = [(label, b) for label, b in rows
               if not re.search(r"^\s+" + re.escape(label) + r"\b.*\s" + re.escape(b) + r"\s*$",
                                listing, re.M)]
    assert status == 0 and len(rows) == 4 and not missing, \
        f"{cmd}: start.md's rows for site {site} ({len(rows)}): missing {missing}"


def check_boot(cmd, patterns, what, image):
    argv = shlex.split(cmd)
    argv[1:1] = ["--timeout", str(BOOT_TIMEOUT), "--image", image]
    _, out = run(argv, BOOT_TIMEOUT)
    out = out.replace("\r", "")
    lost = in_order(patterns, out)
    assert patterns and lost is None, f"{cmd}: {what}: no line matching {lost}"


def check_disk(cmd, comment, image, tmp):
    cmd = cmd.replace("build/d.img", os.path.join(tmp, "d.img"))
    names = re.findall(r"\b(PASS|[a-z-]+:)", comment)
    patterns = [r"^patchbay: PASS$" if n == "PASS" else "^" + re.escape(n) + " " for n in names]
    check_boot(cmd, patterns, "the lines its comment names: " + ", ".join(names), image)


RUNNERS = [(r"^tools/pvsites \S+ --disasm$", check_pvsites),
           (r"^tools/run --disk \S+ --disk-new 4M -- disk=on$", check_disk)]
COMMANDS = path_commands()


def test_five_paths_quote_commands():
    assert len(COMMANDS) >= 5, "docs/README.md's five paths quote commands"


@BOOTS
@pytest.mark.parametrize("cmd,comment", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_path_command(cmd, comment, image, tmp_path):
    """A command run here, or one of a dear door."""
    runner = next((f for p, f in RUNNERS if re.match(p, cmd)), None)
    if runner:
        runner(cmd, comment, image, str(tmp_path))
    else:
        assert any(d in cmd.split() for d in DEAR), f"{cmd}: run here or a dear door"


# Q1's path runs start.md's commands, and start.md quotes the native cli's lines.
@BOOTS
def test_fault_cli(image):
    shown = shown_lines(page("start.md"), "`tools/run -- fault=cli`")
    check_boot("tools/run -- fault=cli", [pattern_of(s) for s in shown],
               f"start.md's {len(shown)} lines, in order", image)
