#!/usr/bin/env python3
"""tools/pbtools/docs/glossary.py and tools/doclinks: what counts as a first use, what
a fix writes, and that the real pages pass while a page with its first
glossary link or a link target removed fails. Ends with "N passed, N
failed"; exits 1 if any check failed."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pbtools.docs import doclinks  # noqa: E402
from pbtools.docs import glossary  # noqa: E402
from report import check, summary  # noqa: E402


TERMS = [glossary.Term("hypercall", []), glossary.Term("call site", ["site"]),
         glossary.Term("vcpu_info", [])]
G = "glossary.md"


def unlinked(text):
    return sorted(glossary.first_unlinked(text, TERMS, G))


check("an unlinked first use is found",
      unlinked("A hypercall, then [hypercall](glossary.md#hypercall).") == ["hypercall"])
check("a linked first use passes, later uses need no link",
      unlinked("A [hypercall](glossary.md#hypercall), then a hypercall.") == [])
check("a plural is a use", unlinked("Two hypercalls.") == ["hypercall"])
check("the longest name wins: 'call site' is not 'site'",
      unlinked("A [call site](glossary.md#call-site).") == [])
check("code, headings, comments and generated blocks are not running text",
      unlinked("# hypercall\n\n    hypercall\n\n```\nhypercall\n```\n<!-- hypercall -->\n"
               "<!-- generated: x -->\nhypercall\n<!-- end generated -->\n") == [])
check("a code span counts only when it is exactly the name",
      unlinked("`vcpu_info->arch` and `xen_vcpu_info`") == []
      and unlinked("the `vcpu_info` page") == ["vcpu_info"])
check("a link to another page does not count as a use",
      unlinked("[hypercall page](xen.md#hypercalls), then [hypercall](glossary.md#hypercall)")
      == [])
fixed = glossary.link_first_uses("the `vcpu_info` and a hypercall, a hypercall", TERMS, G)
check("fix links the first use of each term, a code span whole",
      fixed == "the [`vcpu_info`](glossary.md#vcpu_info) and a "
               "[hypercall](glossary.md#hypercall), a hypercall")
check("fix is idempotent", glossary.link_first_uses(fixed, TERMS, G) == fixed)
check("anchors are GitHub's", [glossary.slug(h) for h in ("W^X", "lazy-MMU section",
                                                           "evtchn_upcall_mask")]
      == ["wx", "lazy-mmu-section", "evtchn_upcall_mask"])

# The real pages pass; one with its first glossary link removed, or with a
# link to a heading that does not exist, fails (negative controls).
run = subprocess.run([os.path.join(ROOT, "tools", "doclinks"), "--check"],
                     capture_output=True, text=True)
check("every page of README.md and docs/ passes", run.returncode == 0)
terms = glossary.load(os.path.join(ROOT, "docs", "glossary.md"))
start = os.path.join(ROOT, "docs", "start.md")
text = open(start).read()
first = re.search(r"\[([^\]]+)\]\(glossary\.md#[^)]+\)", text)
mutant = text[:first.start()] + first.group(1) + text[first.end():]
check("a page without its first glossary link fails",
      first is not None and glossary.first_unlinked(mutant, terms, G) != {})
broken = text + "\nSee [nowhere](mm.md#no-such-heading) and [gone](gone.md).\n"
check("links to a missing heading and a missing file are reported",
      len(list(doclinks.broken_links(start, broken))) == 2
      and not list(doclinks.broken_links(start, text)))

sys.exit(summary())
