#!/usr/bin/env python3
"""tools/pbtools/docs/glossary.py and tools/doclinks: what counts as a first use, what
a fix writes, and that the real pages pass while a page with its first
glossary link or a link target removed fails."""

import os
import re
import subprocess

from pbtools.docs import doclinks
from pbtools.docs import glossary

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


TERMS = [glossary.Term("hypercall", []), glossary.Term("call site", ["site"]),
         glossary.Term("vcpu_info", [])]
G = "glossary.md"


def unlinked(text):
    return sorted(glossary.first_unlinked(text, TERMS, G))


def test_unlinked_first_use_is_found():
    assert unlinked("A hypercall, then [hypercall](glossary.md#hypercall).") == ["hypercall"]


def test_linked_first_use_passes():
    assert unlinked("A [hypercall](glossary.md#hypercall), then a hypercall.") == [], \
        "a linked first use passes, later uses need no link"


def test_plural_is_a_use():
    assert unlinked("Two hypercalls.") == ["hypercall"]


def test_longest_name_wins():
    assert unlinked("A [call site](glossary.md#call-site).") == [], \
        "the longest name wins: 'call site' is not 'site'"


def test_code_headings_comments_generated_are_not_running_text():
    assert unlinked("# hypercall\n\n    hypercall\n\n```\nhypercall\n```\n<!-- hypercall -->\n"
                    "<!-- generated: x -->\nhypercall\n<!-- end generated -->\n") == []


def test_code_span_counts_only_when_exactly_the_name():
    assert unlinked("`vcpu_info->arch` and `xen_vcpu_info`") == []
    assert unlinked("the `vcpu_info` page") == ["vcpu_info"]


def test_link_to_another_page_is_not_a_use():
    assert unlinked("[hypercall page](xen.md#hypercalls), then "
                    "[hypercall](glossary.md#hypercall)") == []


def test_fix_links_first_uses_and_is_idempotent():
    fixed = glossary.link_first_uses("the `vcpu_info` and a hypercall, a hypercall", TERMS, G)
    assert fixed == ("the [`vcpu_info`](glossary.md#vcpu_info) and a "
                     "[hypercall](glossary.md#hypercall), a hypercall"), \
        "fix links the first use of each term, a code span whole"
    assert glossary.link_first_uses(fixed, TERMS, G) == fixed, "fix is idempotent"


def test_anchors_are_githubs():
    assert [glossary.slug(h) for h in ("W^X", "lazy-MMU section", "evtchn_upcall_mask")] \
        == ["wx", "lazy-mmu-section", "evtchn_upcall_mask"]


# The real pages pass; one with its first glossary link removed, or with a
# link to a heading that does not exist, fails (negative controls).
def test_every_page_passes():
    run = subprocess.run([os.path.join(ROOT, "tools", "doclinks"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, "every page of README.md and docs/ passes: " + (
        run.stdout + run.stderr)[-1000:]


def start_page():
    start = os.path.join(ROOT, "docs", "start.md")
    with open(start) as f:
        return start, f.read()


def test_page_without_its_first_glossary_link_fails():
    terms = glossary.load(os.path.join(ROOT, "docs", "glossary.md"))
    _, text = start_page()
    first = re.search(r"\[([^\]]+)\]\(glossary\.md#[^)]+\)", text)
    assert first is not None, "docs/start.md has a glossary link"
    mutant = text[:first.start()] + first.group(1) + text[first.end():]
    assert glossary.first_unlinked(mutant, terms, G) != {}, \
        "a page without its first glossary link fails"


def test_missing_heading_and_file_are_reported():
    start, text = start_page()
    broken = text + "\nSee [nowhere](mm.md#no-such-heading) and [gone](gone.md).\n"
    assert len(list(doclinks.broken_links(start, broken))) == 2, \
        "links to a missing heading and a missing file are reported"
    assert not list(doclinks.broken_links(start, text))
