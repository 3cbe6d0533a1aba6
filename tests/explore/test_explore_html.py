"""tests/explore/test_explore_html.py: the site tools/explore writes,
checked without a browser (Python's html.parser).

    pytest-3 tests/explore/test_explore_html.py [--image PATH] [--bench DIR] [--out DIR]

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
The options are tests/explore/conftest.py's.
"""

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from pbtools.bench import catalog as bench_catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
SHOWN = 10  # problems a failure lists; the rest are counted

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


def listed(problems):
    """problems one a line, the first SHOWN of them and how many more."""
    more = ["... and %d more" % (len(problems) - SHOWN)] if len(problems) > SHOWN else []
    return "\n".join(problems[:SHOWN] + more)


@pytest.fixture(scope="module")
def generated(args):
    """tools/explore's run into OUT: (exit status, stdout, stderr)."""
    return explore(args, args.out)


@pytest.fixture(scope="module")
def site(args, generated):
    """OUT, once tools/explore wrote it; the structure checks need it."""
    if generated[0] != 0:
        pytest.fail("tools/explore did not write the site: exit %d: %s"
                    % (generated[0], generated[2]))
    return args.out


@pytest.fixture(scope="module")
def want(args):
    return image_sites(args.image)


@pytest.fixture(scope="module")
def groups(args):
    return [g["name"] for g in bench_catalog.catalog(args.image)["groups"]]


def test_writes_the_site_and_prints_index(args, generated):
    status, out, err = generated
    index = os.path.join(args.out, "index.html")
    assert status == 0 and os.path.samefile(out, index) and os.path.isfile(index), \
        "exit %d, printed %r, stderr: %s" % (status, out, err)


def test_second_run_writes_the_same_bytes(args, site):
    again = args.out + ".again"
    status, _, err = explore(args, again)
    try:
        assert status == 0, "second run: exit %d: %s" % (status, err)
        diffs = same_tree(site, again)
        assert not diffs, listed(diffs)
    finally:
        shutil.rmtree(again, ignore_errors=True)


def test_missing_image_exit_2_one_line(args, site):
    bad = dict(vars(args), image=os.path.join(args.out, "no-such.elf"))
    status, _, err = explore(argparse.Namespace(**bad), args.out + ".bad")
    assert status == 2 and err.startswith("explore: ") and "\n" not in err, \
        "exit %d, stderr %r" % (status, err)


def test_foreign_out_refused_and_left_alone(args, site):
    foreign = args.out + ".foreign"
    os.makedirs(foreign, exist_ok=True)
    with open(os.path.join(foreign, "keep.txt"), "w") as f:
        f.write("not explore's\n")
    try:
        status, _, err = explore(args, foreign)
        kept = os.path.exists(os.path.join(foreign, "keep.txt"))
        assert status == 2 and kept, "exit %d, kept %s, stderr %r" % (status, kept, err)
    finally:
        shutil.rmtree(foreign, ignore_errors=True)


def test_every_site_one_row_with_bytes(site, want):
    assert want, "the image has no sites"
    problems = row_problems(os.path.join(site, "index.html"), want)
    assert not problems, "every one of the %d sites has one row with bytes for %s:\n%s" % (
        len(want), ", ".join(BACKENDS), listed(problems))


def test_every_relative_link_resolves(site):
    problems = link_problems(site)
    assert not problems, listed(problems)


def test_every_bench_group_has_its_page(site, groups):
    problems = bench_problems(site, groups)
    assert not problems, "every benchmark group (%s) has its page: %s" % (
        ", ".join(groups), listed(problems))


def sub(path, pattern, repl):
    """Replaces the first match in a file; whether anything changed."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    changed = re.sub(pattern, repl, text, count=1, flags=re.S)
    with open(path, "w", encoding="utf-8") as f:
        f.write(changed)
    return changed != text


# Faults planted in a copy of the site: (what is reported, how it is
# planted), each given the copy, the first site's id and the first group.
FAULTS = {
    "a deleted row": (
        lambda first, group: first,
        lambda copy, first, group: sub(os.path.join(copy, "index.html"),
                                       r'<tr id="%s".*?</tr>\n?' % first, "")),
    "an emptied xen-pvh cell": (
        lambda first, group: "no bytes in the xen-pvh cell",
        lambda copy, first, group: sub(
            os.path.join(copy, "index.html"),
            r'(<tr id="%s".*?<td class="b b-xen-pvh">).*?</td>' % first, r"\1</td>")),
    "a broken link": (
        lambda first, group: "no such file",
        lambda copy, first, group: sub(os.path.join(copy, "index.html"), r'href="tour.html#',
                                       'href="tuor.html#')),
    "a broken anchor": (
        lambda first, group: 'no id "tour-0"',
        lambda copy, first, group: sub(os.path.join(copy, "index.html"),
                                       r'href="tour.html#tour-\d+"', 'href="tour.html#tour-0"')),
    "a missing bench page": (
        lambda first, group: "bench-%s.html" % group,
        lambda copy, first, group: os.remove(os.path.join(copy, "bench-%s.html" % group))
        or True),
}


@pytest.mark.parametrize("expect,plant", FAULTS.values(), ids=list(FAULTS))
def test_checks_catch(site, want, groups, expect, plant):
    """Each fault planted in a copy of the site must be reported. The copy
    sits beside the site, so its links into the repository still resolve."""
    copy = site + ".broken"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(site, copy)
    try:
        planted = plant(copy, want[0], groups[0])
        found = all_problems(copy, want, groups)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    assert planted and any(expect(want[0], groups[0]) in p for p in found), \
        "planted %s; reported: %s" % (planted, found[:3] or "nothing")


@pytest.fixture(scope="module")
def benches(args):
    return {b["name"]: b["group"] for b in bench_catalog.catalog(args.image)["benches"]}


@pytest.fixture(scope="module")
def norun(args, site):
    """Check 7's site: written with an empty --bench into OUT.norun."""
    out = args.out + ".norun"
    empty = os.path.join(out + ".bench")
    os.makedirs(empty, exist_ok=True)
    status, _, err = explore(argparse.Namespace(**dict(vars(args), bench=empty)), out)
    if status != 0:
        pytest.fail("tools/explore with an empty --bench: exit %d: %s" % (status, err))
    yield out
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(empty, ignore_errors=True)


def test_no_run_pages_show_what_the_docs_quote(norun, benches):
    rows = docs_rows(benches)
    assert rows, "no generated table row in the docs"
    problems = quoted_problems(norun, benches)
    assert not problems, "with no run, every benchmark page shows what the docs quote (%d " \
        "rows of %d benchmarks):\n%s" % (sum(map(len, rows.values())), len(rows),
                                          listed(problems))


# Faults in a benchmark page of the no-run site: (what is reported, the
# page's text broken, given the text and the first quoted row's cells).
QUOTE_FAULTS = {
    "the quoted section removed": (
        "quotes nothing",
        lambda text, cells: re.sub(r'<h2 id="quoted">.*</main>', "</main>", text, flags=re.S)),
    "a quoted figure changed": (
        "does not show the docs' row",
        lambda text, cells: text.replace("<td>%s</td>" % cells[1], "<td>%s0</td>" % cells[1], 1)),
}


@pytest.mark.parametrize("expect,broken", QUOTE_FAULTS.values(), ids=list(QUOTE_FAULTS))
def test_quote_check_catches(norun, benches, expect, broken):
    rows = docs_rows(benches)
    bench, cells = sorted(rows.items())[0][0], sorted(rows.items())[0][1][0]
    page_path = os.path.join(norun, "bench-%s.html" % benches[bench])
    with open(page_path, encoding="utf-8") as f:
        text = f.read()
    changed = broken(text, cells)
    try:
        with open(page_path, "w", encoding="utf-8") as f:
            f.write(changed)
        found = quoted_problems(norun, benches)
    finally:
        with open(page_path, "w", encoding="utf-8") as f:
            f.write(text)
    assert changed != text and any(expect in p for p in found), \
        "reported: %s" % (found[:3] or "nothing")
