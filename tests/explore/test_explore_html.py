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
7. Written with no benchmark run (an empty --bench, into OUT.norun), no
   benchmark page says so without a quoted section; every row a generated
   table of README.md or docs/ gives a benchmark is on its group's page,
   cell for cell; the lifecycle page names the date of
   docs/lifecycle-run.json. The check bites on a page without its quoted
   section and on a quoted figure changed.
Ends with "N passed, N failed"; exits 1 if any check failed.
"""

import argparse
import filecmp
import json
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
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pbtools.bench import catalog as bench_catalog  # noqa: E402
from report import check_problems, summary  # noqa: E402

# The bytes columns (class b-KEY): as linked, then one per platform.
BACKENDS = ["linked", "native", "xen-pv", "xen-pvh"]


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
    from pbtools.elf import pvsites
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


class Quoted(HTMLParser):
    """The quoted section of a benchmark page (from <h2 id="quoted"> on):
    its text, and the cells of each of its table rows."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.inside, self.text, self.rows, self.cell = False, "", [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "h2" and dict(attrs).get("id") == "quoted":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.inside:
            self.text += data
            if self.cell is not None:
                self.cell += data


GENERATED = re.compile(r"^<!-- generated: .*?^<!-- end generated -->", re.M | re.S)
QUOTED_ROW = re.compile(r"^\| `(\w+)` \|(.*)\|\s*$", re.M)


def docs_rows(benches):
    """{benchmark: [its cells, from each generated table row of README.md
    and docs/ that leads with it]}, read straight from the pages."""
    rows = {}
    for name in ["README.md"] + ["docs/" + n for n in sorted(os.listdir(os.path.join(ROOT, "docs")))
                                 if n.endswith(".md")]:
        with open(os.path.join(ROOT, name), encoding="utf-8") as f:
            text = f.read()
        for block in GENERATED.finditer(text):
            for m in QUOTED_ROW.finditer(block.group(0)):
                if m.group(1) in benches:
                    cells = [m.group(1)] + [c.strip().replace("`", "")
                                            for c in m.group(2).split("|")]
                    rows.setdefault(m.group(1), []).append(cells)
    return rows


def quoted_problems(site, benches):
    """A page that says no run was made shows a quoted section; every row a
    generated table of the docs gives a benchmark is on its group's page,
    cell for cell; the lifecycle page names the recorded run's date."""
    problems = []
    pages = {}
    for name in sorted(os.listdir(site)):
        if name.startswith("bench-") and name.endswith(".html"):
            with open(os.path.join(site, name), encoding="utf-8") as f:
                text = f.read()
            pages[name] = Quoted(text)
            if re.search(r"No (benchmark|lifecycle) run", text) and not pages[name].text.strip():
                problems.append("%s says no run was made and quotes nothing" % name)
    for bench, rows in sorted(docs_rows(benches).items()):
        shown = pages.get("bench-%s.html" % benches[bench])
        for cells in rows:
            if shown is None or cells not in shown.rows:
                problems.append("bench-%s.html does not show the docs' row %s"
                                % (benches[bench], " | ".join(cells)))
    with open(os.path.join(ROOT, "docs", "lifecycle-run.json")) as f:
        date = json.load(f)["conditions"]["date"]
    lifecycle = pages.get("bench-lifecycle.html")
    if lifecycle is None or "recorded in docs/lifecycle-run.json on %s" % date \
            not in re.sub(r"\s+", " ", lifecycle.text):
        problems.append("bench-lifecycle.html does not quote the run recorded on %s" % date)
    return problems


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
    check_problems("tools/explore writes the site and prints index.html",
                   [] if status == 0 and os.path.samefile(out, index) and os.path.isfile(index)
                   else ["exit %d, printed %r, stderr: %s" % (status, out, err)])
    if status != 0:
        return False
    again = args.out + ".again"
    status, _, err = explore(args, again)
    check_problems("a second run writes the same bytes",
                   ["second run: exit %d: %s" % (status, err)] if status
                   else same_tree(args.out, again))
    shutil.rmtree(again, ignore_errors=True)
    bad = dict(vars(args), image=os.path.join(args.out, "no-such.elf"))
    status, _, err = explore(argparse.Namespace(**bad), args.out + ".bad")
    check_problems("a missing image: exit 2 and one line",
                   [] if status == 2 and err.startswith("explore: ") and "\n" not in err
                   else ["exit %d, stderr %r" % (status, err)])
    foreign = args.out + ".foreign"
    os.makedirs(foreign, exist_ok=True)
    with open(os.path.join(foreign, "keep.txt"), "w") as f:
        f.write("not explore's\n")
    status, _, err = explore(args, foreign)
    kept = os.path.exists(os.path.join(foreign, "keep.txt"))
    check_problems("a foreign --out directory is refused and left alone",
                   [] if status == 2 and kept
                   else ["exit %d, kept %s, stderr %r" % (status, kept, err)])
    shutil.rmtree(foreign, ignore_errors=True)
    return True


def no_run_checks(args, benches):
    """Check 7: a site written with no benchmark run shows what the docs
    quote, and the check bites on a page stripped of it and on a figure
    changed."""
    out = args.out + ".norun"
    empty = os.path.join(out + ".bench")
    os.makedirs(empty, exist_ok=True)
    status, _, err = explore(argparse.Namespace(**dict(vars(args), bench=empty)), out)
    if status != 0:
        check_problems("with no run, every benchmark page shows what the docs quote",
                       ["tools/explore with an empty --bench: exit %d: %s" % (status, err)])
        return
    rows = docs_rows(benches)
    check_problems("with no run, every benchmark page shows what the docs quote (%d rows of "
                   "%d benchmarks)" % (sum(map(len, rows.values())), len(rows)),
                   quoted_problems(out, benches) if rows
                   else ["no generated table row in the docs"])
    bench, cells = sorted(rows.items())[0][0], sorted(rows.items())[0][1][0]
    page_path = os.path.join(out, "bench-%s.html" % benches[bench])
    with open(page_path, encoding="utf-8") as f:
        text = f.read()
    faults = [("the quoted section removed", "quotes nothing",
               re.sub(r'<h2 id="quoted">.*</main>', "</main>", text, flags=re.S)),
              ("a quoted figure changed", "does not show the docs' row",
               text.replace("<td>%s</td>" % cells[1], "<td>%s0</td>" % cells[1], 1))]
    for what, expect, broken in faults:
        with open(page_path, "w", encoding="utf-8") as f:
            f.write(broken)
        found = quoted_problems(out, benches)
        check_problems("the quote check catches %s" % what,
                       [] if broken != text and any(expect in p for p in found)
                       else ["reported: %s" % (found[:3] or "nothing")])
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(empty, ignore_errors=True)


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
        check_problems("the checks catch %s" % what,
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
        groups = [g["name"] for g in bench_catalog.catalog(args.image)["groups"]]
        check_problems("every one of the %d sites has one row with bytes for %s"
                       % (len(want), ", ".join(BACKENDS)),
                       row_problems(os.path.join(args.out, "index.html"), want) if want
                       else ["the image has no sites"])
        check_problems("every relative link and image resolves", link_problems(args.out))
        check_problems("every benchmark group (%s) has its page" % ", ".join(groups),
                       bench_problems(args.out, groups))
        negative_controls(args.out, want, groups)
        no_run_checks(args, {b["name"]: b["group"] for b in bench_catalog.catalog(
            args.image)["benches"]})
    return summary()


if __name__ == "__main__":
    sys.exit(main())
