#!/usr/bin/env python3
"""tools/prose_check.py against build/patchbay.elf: pages with a wrong byte
sequence, a wrong mode count, a wrong site length, option list or figure
fail at their file and line, and the same pages put right pass; a copy of
docs/start.md with one of its old, stale sentences put back fails where
the real page passes; a tour passage in a scratch tree is checked too; an
exemption lets one claim through, and one that matches nothing, or gives
no reason, fails; an acronym the glossary does not define fails."""

import os
import re
import subprocess
import sys
import tempfile

import pytest
from pbtools.docs import prose_check
from pbtools.docs import prose_facts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = os.path.join(ROOT, "build", "patchbay.elf")


@pytest.fixture(scope="module")
def facts():
    """What the image says, read once for the file."""
    if not os.path.exists(IMAGE):
        pytest.fail("build/patchbay.elf not found; run make")
    return prose_facts.Facts(IMAGE)


def problems_of(facts, path, text):
    units = prose_check.markdown_units(path, text)
    return prose_check.check_units(units, facts, lambda _: prose_check.figure_pool([]))


def lines_of(problems):
    return sorted(p.line for p in problems)


WRONG = """# A page

Natively an `irq_disable` site holds `fa 66 0f 1f 44 00 00` after patching.

Xen has three pte modes.

An `irq_enable` site is a 6-byte site.

| Option | Default | Meaning |
| --- | --- | --- |
| `xen.mmu=trap\\|hypercall\\|batch` | `trap` | how pte updates reach Xen |
"""
RIGHT = """# A page

Natively an `irq_disable` site holds `0f 1f 84 00 00 00 00 00 fa` after patching.

Xen has four pte modes.

An `irq_enable` site is a 25-byte site.

| Option | Default | Meaning |
| --- | --- | --- |
| `xen.mmu=trap\\|hypercall\\|batch\\|swap` | `batch` | how pte updates reach Xen |
"""


# What the wrong page must fail with: its line, and what the problem there says.
WRONG_FAILS = [
    ("a wrong byte sequence fails at its line, with what the image has",
     3, "0f 1f 84 00 00 00 00 00 fa"),
    ("a wrong mode count fails at its line, naming the four modes",
     5, "4 modes (trap, hypercall, batch, swap)"),
    ("a wrong site length fails at its line", 7, "25 bytes long"),
]


@pytest.mark.parametrize("name,line,says", WRONG_FAILS, ids=["bytes", "modes", "length"])
def test_wrong_page_fails_at_its_line(facts, name, line, says):
    found = problems_of(facts, "/fixture/page.md", WRONG)
    assert any(p.line == line and says in p.text for p in found), \
        name + ":\n" + "\n".join(map(str, found))


def test_wrong_option_list_fails_at_its_line(facts):
    found = problems_of(facts, "/fixture/page.md", WRONG)
    assert lines_of(found).count(11) == 2, \
        "an option list without a mode, and a wrong default, fail at their line:\n" \
        + "\n".join(map(str, found))


def test_failures_name_file_and_line(facts):
    found = problems_of(facts, "/fixture/page.md", WRONG)
    assert all(str(p).startswith("/fixture/page.md:") for p in found) and len(found) == 5, \
        "the failures name the file and line:\n" + "\n".join(map(str, found))


def test_page_put_right_passes(facts):
    right = problems_of(facts, "/fixture/page.md", RIGHT)
    assert right == [], "the same page put right passes:\n" + "\n".join(map(str, right))


def test_stale_start_page(facts):
    """docs/start.md passes; with one of its old sentences back, it fails there."""
    path = os.path.join(ROOT, "docs", "start.md")
    with open(path) as f:
        text = f.read()
    assert problems_of(facts, path, text) == [], "docs/start.md passes"
    now = "a 3-byte NOP (`0f 1f 00`) to the 9 bytes the longest replacement needs."
    stale = text.replace(now, "`90` (NOP) to the 9 bytes the longest replacement needs.")
    found = problems_of(facts, path, stale)
    line = stale[:stale.index("`90` (NOP)")].count("\n") + 1
    assert now in text and [p.line for p in found] == [line] and "0f 1f 00" in found[0].text, \
        "start.md with 'padded with `90` (NOP)' put back fails at that line:\n" \
        + "\n".join(map(str, found))
    order = text.replace("one 8-byte NOP, then `fa`, `cli` itself", "`fa` is `cli` itself, "
                         "then one 8-byte NOP")
    found = problems_of(facts, path, order)
    assert order != text and len(found) == 1, \
        "start.md with the NOP after the cli again fails:\n" + "\n".join(map(str, found))


def test_tour(facts):
    """A passage in a scratch tree, checked as the tour's passages are."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "pv"))
        with open(os.path.join(root, "pv", "site.c"), "w") as f:
            f.write("/* Tour 1: A site.\n"
                    " * `irq_disable` compiles to `call *pv_irq_ops(%rip)`, padded with a\n"
                    " * NOP to 7, and natively `ff 15 xx xx xx xx 90` becomes\n"
                    " * `fa 66 0f 1f 44 00 00`. */\n"
                    "void site(void)\n{\n}\n\n"
                    "/* prose-check: exempt \"seven\": the one-CPU form, before SMP */\n"
                    "/* Tour 2: History.\n"
                    " * The one-CPU Xen form `movb $1, mask(%rip)` took seven bytes,\n"
                    " * and `irq_disable` site lengths were 7. */\n"
                    "void history(void)\n{\n}\n")
        saved = prose_check.tour.ROOT
        prose_check.tour.ROOT = root
        try:
            found = prose_check.check_units(prose_check.tour_units(), facts,
                                            lambda _: prose_check.figure_pool([]))
        finally:
            prose_check.tour.ROOT = saved
    text = "\n".join(map(str, found))
    assert lines_of(found) == [3, 3, 4] and all(p.path.endswith("pv/site.c") for p in found), \
        "a passage's 'padded ... to 7' and stale bytes fail at their source lines:\n" + text


def test_exemption_lets_its_claim_through(facts):
    exempt = ("<!-- prose-check: exempt \"`e6 80`\": an op that exists only in a copy -->\n"
              "A worked example writes `e6 80` (`out %al, $0x80`).\n")
    assert problems_of(facts, "/f.md", exempt) == [], "an exemption lets its claim through"
    assert len(problems_of(facts, "/f.md", exempt.split("\n", 1)[1])) == 1, \
        "which fails without it"


def test_exemption_matching_no_claim_fails(facts):
    stale = "<!-- prose-check: exempt \"`e6 81`\": gone -->\nNo bytes here.\n"
    found = problems_of(facts, "/f.md", stale)
    assert [(p.line, p.text) for p in found] == [(1, "exemption matches no claim")], \
        "an exemption that matches no claim fails:\n" + "\n".join(map(str, found))


def test_exemption_without_reason_fails(facts):
    bare = "<!-- prose-check: exempt figures -->\nIt costs 12345 instructions.\n"
    found = problems_of(facts, "/f.md", bare)
    assert any(p.text == "exemption without a reason" for p in found), \
        "an exemption without a reason fails:\n" + "\n".join(map(str, found))


def test_terms(facts):
    """An acronym the glossary neither defines nor lists as known fails, the
    way a stale figure does; a defined one, one in code or in a file's
    name passes; taking a term out of a copy of the glossary makes its
    use fail."""
    text = ("A shootdown is an IPI to each CPU, then a wait on the QXR.\n\n"
            "See `QXR_BASE` and QXR.md; the L1 table, not the L7 one.\n")
    found = problems_of(facts, "/f.md", text)
    assert sorted((p.line, p.text.split(":")[0]) for p in found) == [(1, "QXR"), (3, "L7")], \
        "an undefined acronym fails at its line, defined and known ones pass:\n" \
        + "\n".join(map(str, found))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "glossary.md")
        with open(prose_check.GLOSSARY) as f:
            gloss = f.read()
        start = gloss.index("### IPI\n")
        with open(path, "w") as f:
            f.write(gloss[:start] + gloss[gloss.index("\n### ", start + 1) + 1:])
        units = prose_check.markdown_units("/f.md", text)
        found = prose_check.check_units(units, facts, lambda _: prose_check.figure_pool([]),
                                        prose_check.glossary.vocabulary(path))
    assert sorted(p.text.split(":")[0] for p in found) == ["IPI", "L7", "QXR"], \
        "with the IPI entry taken out of the glossary, IPI fails too:\n" \
        + "\n".join(map(str, found))


def test_terms_exemption(facts):
    exempt = "<!-- prose-check: exempt terms: a made-up register -->\nThe QXR.\n"
    assert problems_of(facts, "/f.md", exempt) == [], \
        "an exemption of kind terms lets the word through"


def test_instruction_must_be_what_bytes_decode_to(facts):
    found = problems_of(facts, "/f.md", "Natively `irq_disable` is `fa`, `sti` itself.\n")
    assert len(found) == 1 and "decode to `cli`" in found[0].text, \
        "an instruction named beside bytes must be what they decode to:\n" \
        + "\n".join(map(str, found))


def test_direct_call_sites_do_not_make_fails(facts):
    found = problems_of(facts, "/f.md", "Under Xen, `irq_enable` becomes "
                        "`call xen_pv_irq_enable`.\n")
    assert len(found) == 1 and "xen_pv_force_upcall" in found[0].text, \
        "a direct call an op's sites do not make fails:\n" + "\n".join(map(str, found))


def test_command_line():
    with tempfile.NamedTemporaryFile("w", suffix=".md") as f:
        f.write(WRONG)
        f.flush()
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "prose_check.py"),
                            f.name], capture_output=True, text=True, timeout=300)
    lines = [l for l in p.stdout.splitlines() if re.match(r"^\S+\.md:\d+: ", l)]
    assert p.returncode == 1 and len(lines) == 5 and p.stdout.rstrip().endswith(
        "0 passed, 1 failed"), \
        "tools/prose_check.py exits 1 with one FILE:LINE: line per claim:\n" + p.stdout + p.stderr
