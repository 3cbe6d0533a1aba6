#!/usr/bin/env python3
"""tests/explore/test_explore_html.py: the site tools/explore writes,
checked without a browser (Python's html.parser).

    python3 tests/explore/test_explore_html.py [--image PATH] [--bench DIR] [--out DIR]

1. tools/explore writes OUT (default build/tests/explore/site) and prints
   its index.html; a second run into OUT.again writes the same bytes.
2. Every site of the image has exactly one row (id site-<hexaddr>), with
   non-empty bytes in each bytes cell: as linked, and each platform's
   (native, xen-pv, xen-pvh).
3. Every relative href and src of every page names an existing file, and a
   #fragment an id on that page; no src leaves the site's machine.
4. Every benchmark group the image registers has its page.
5. Bad input (a missing image, a foreign --out) exits 2 with one line.
6. The checks bite: on copies of the site with a row deleted, a platform's
   cell emptied, a link and an anchor broken, a bench page removed, each
   must report the fault it was given.
Ends with "N passed, N failed"; exits 1 if any check failed.
"""

import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
sys.dont_write_bytecode = True  # no __pycache__ in tools/ or tests/
sys.path.insert(0, TOOLS)
import bench_report  # noqa: E402
import explore_sites  # noqa: E402

# The bytes columns (class b-KEY): as linked, then one per platform.
BACKENDS = ["linked", "native", "xen-pv", "xen-pvh"]
results = []


def check(name, problems):
    """One PASS/FAIL line; problems is a list of strings (empty: passed)."""
    results.append(not problems)
    print(("PASS " if not problems else "FAIL ") + name)
    for p in problems[:10]:
        print("  " + p)
    if len(problems) > 10:
        print("  ... and %d more" % (len(problems) - 10))


class Page(HTMLParser):
    """What the checks need from one page: its ids (and the attributes of
    the element each names), its links, the <body> attributes, and each
    site row's attributes, links and the bytes of its bytes cells."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.ids, self.links, self.rows, self.by_id = [], [], {}, {}
        self.row = self.cell = None
        self.in_bytes = 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        # Rows, bytes cells and byte spans nest: tr > td.b-NAME > code.bytes.
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
            self.by_id.setdefault(a["id"], (tag, a))
        if tag == "body":
            self.body = a
        for name in ("href", "src"):
            if a.get(name) is not None:
                self.links.append((tag, name, a[name]))
                if self.row is not None:
                    self.row[-1]["links"].append(a[name])
        classes = (a.get("class") or "").split()
        if tag == "tr" and (a.get("id") or "").startswith("site-"):
            self.row = self.rows.setdefault(a["id"], [])
            self.row.append(dict(attrs=a, cells={}, links=[]))
        elif tag == "td" and self.row is not None:
            backend = [c[2:] for c in classes if c.startswith("b-")]
            self.cell = backend[0] if backend else None
            if self.cell:
                self.row[-1]["cells"].setdefault(self.cell, "")
        elif tag == "code" and "bytes" in classes and self.cell:
            self.in_bytes += 1

    def handle_endtag(self, tag):
        if tag == "tr":
            self.row = self.cell = None
        elif tag == "td":
            self.cell = None
        elif tag == "code" and self.in_bytes:
            self.in_bytes -= 1

    def handle_data(self, data):
        if self.in_bytes and self.cell and self.row is not None:
            self.row[-1]["cells"][self.cell] += data


_pages = {}


def page(path):
    """The parsed page at path (parsed once per run of the checks)."""
    if path not in _pages:
        with open(path, encoding="utf-8") as f:
            _pages[path] = Page(f.read())
    return _pages[path]


def image_sites(image):
    """The ids the image's sites must have rows under, in descriptor order."""
    pvsites = explore_sites.load_tool("pvsites")
    return ["site-%x" % s["addr"] for s in pvsites.read_sites(pvsites.open_image(image))]


def row_problems(index, want):
    """Each site of want: exactly one row, non-empty bytes in every bytes cell."""
    rows = page(index).rows
    problems = []
    for sid in want:
        found = rows.get(sid, [])
        if len(found) != 1:
            problems.append("%s: %d rows, not 1" % (sid, len(found)))
            continue
        for backend in BACKENDS:
            text = found[0]["cells"].get(backend)
            if text is None or not re.search(r"[0-9a-f]{2}", text):
                problems.append("%s: no bytes in the %s cell" % (sid, backend))
    problems += ["%s: a row for no site of the image" % sid for sid in rows if sid not in want]
    return problems


EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def link_problems(site):
    """Every relative href/src of every page resolves, fragments included."""
    problems = []
    for dirpath, _, names in os.walk(site):
        for name in sorted(n for n in names if n.endswith(".html")):
            path = os.path.join(dirpath, name)
            for tag, attr, url in page(path).links:
                fault = link_fault(path, attr, url)
                if fault:
                    problems.append("%s: <%s %s=\"%s\">: %s"
                                    % (os.path.relpath(path, site), tag, attr, url, fault))
    return problems


def link_fault(page_path, attr, url):
    """Why url, found on page_path, does not resolve; None if it does."""
    if EXTERNAL.match(url):
        return "an external resource" if attr == "src" else None
    before, _, fragment = url.partition("#")
    target = before.partition("?")[0]
    resolved = os.path.normpath(os.path.join(os.path.dirname(page_path), target)) \
        if target else page_path
    if not os.path.exists(resolved):
        return "no such file"
    if fragment:
        if not resolved.endswith(".html"):
            return "a fragment into a page that is not HTML"
        if fragment not in page(resolved).ids:
            return "no id \"%s\" there" % fragment
    return None


def bench_problems(site, groups):
    """A page per group the image registers, run or no run."""
    return ["bench-%s.html missing" % g for g in groups
            if not os.path.isfile(os.path.join(site, "bench-%s.html" % g))]


def all_problems(site, want, groups):
    """Every check of one site directory, for the negative controls."""
    _pages.clear()
    return (row_problems(os.path.join(site, "index.html"), want) + link_problems(site)
            + bench_problems(site, groups))


def explore(args, out):
    """Runs tools/explore into out; (exit status, stdout, stderr)."""
    p = subprocess.run([os.path.join(TOOLS, "explore"), "--image", args.image, "--bench",
                        args.bench, "--out", out], capture_output=True, text=True)
    return p.returncode, p.stdout.strip(), p.stderr.strip()


def same_tree(a, b):
    """The files under a and b that differ or exist on one side only."""
    cmp = filecmp.dircmp(a, b)
    diffs = [os.path.join(a, n) for n in cmp.left_only + cmp.right_only]
    diffs += [os.path.join(a, n) for n in cmp.common_files
              if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False)]
    for sub in cmp.common_dirs:
        diffs += same_tree(os.path.join(a, sub), os.path.join(b, sub))
    return diffs


def generation_checks(args):
    """Checks 1 and 5; returns whether the site was written."""
    status, out, err = explore(args, args.out)
    index = os.path.join(args.out, "index.html")
    check("tools/explore writes the site and prints index.html",
          [] if status == 0 and os.path.samefile(out, index) and os.path.isfile(index)
          else ["exit %d, printed %r, stderr: %s" % (status, out, err)])
    if status != 0:
        return False
    again = args.out + ".again"
    status, _, err = explore(args, again)
    check("a second run writes the same bytes",
          ["second run: exit %d: %s" % (status, err)] if status else same_tree(args.out, again))
    shutil.rmtree(again, ignore_errors=True)
    bad = dict(vars(args), image=os.path.join(args.out, "no-such.elf"))
    status, _, err = explore(argparse.Namespace(**bad), args.out + ".bad")
    check("a missing image: exit 2 and one line",
          [] if status == 2 and err.startswith("explore: ") and "\n" not in err
          else ["exit %d, stderr %r" % (status, err)])
    foreign = args.out + ".foreign"
    os.makedirs(foreign, exist_ok=True)
    with open(os.path.join(foreign, "keep.txt"), "w") as f:
        f.write("not explore's\n")
    status, _, err = explore(args, foreign)
    kept = os.path.exists(os.path.join(foreign, "keep.txt"))
    check("a foreign --out directory is refused and left alone",
          [] if status == 2 and kept else ["exit %d, kept %s, stderr %r" % (status, kept, err)])
    shutil.rmtree(foreign, ignore_errors=True)
    return True


def negative_controls(site, want, groups):
    """Each fault planted in a copy of the site must be reported. The copy
    sits beside the site, so its links into the repository still resolve."""
    copy = site + ".broken"
    index = os.path.join(copy, "index.html")

    def sub(path, pattern, repl):
        """Replaces the first match in a file; whether anything changed."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        changed = re.sub(pattern, repl, text, count=1, flags=re.S)
        with open(path, "w", encoding="utf-8") as f:
            f.write(changed)
        return changed != text

    first, group = want[0], groups[0]
    faults = [
        ("a deleted row", first, lambda: sub(index, r'<tr id="%s".*?</tr>\n?' % first, "")),
        ("an emptied xen-pvh cell", "no bytes in the xen-pvh cell",
         lambda: sub(index, r'(<tr id="%s".*?<td class="b b-xen-pvh">).*?</td>' % first,
                     r"\1</td>")),
        ("a broken link", "no such file",
         lambda: sub(index, r'href="tour.html#', 'href="tuor.html#')),
        ("a broken anchor", 'no id "tour-0"',
         lambda: sub(index, r'href="tour.html#tour-\d+"', 'href="tour.html#tour-0"')),
        ("a missing bench page", "bench-%s.html" % group,
         lambda: os.remove(os.path.join(copy, "bench-%s.html" % group)) or True),
    ]
    for what, expect, plant in faults:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(site, copy)
        planted = plant()
        found = all_problems(copy, want, groups)
        check("the checks catch %s" % what,
              [] if planted and any(expect in p for p in found)
              else ["planted %s; reported: %s" % (planted, found[:3] or "nothing")])
    shutil.rmtree(copy, ignore_errors=True)


def main():
    """Generation first; the structure checks need the site it writes."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "patchbay.elf"))
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "tests", "explore", "site"))
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    if generation_checks(args):
        want = image_sites(args.image)
        groups = [g["name"] for g in bench_report.catalog(args.image)["groups"]]
        check("every one of the %d sites has one row with bytes for %s"
              % (len(want), ", ".join(BACKENDS)),
              row_problems(os.path.join(args.out, "index.html"), want) if want
              else ["the image has no sites"])
        check("every relative link and image resolves", link_problems(args.out))
        check("every benchmark group (%s) has its page" % ", ".join(groups),
              bench_problems(args.out, groups))
        negative_controls(args.out, want, groups)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
