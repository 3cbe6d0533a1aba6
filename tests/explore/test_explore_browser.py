"""tests/explore/test_explore_browser.py: the explorer in headless Chromium.

    pytest-3 tests/explore/test_explore_browser.py [--site DIR] [--image PATH] [--screenshot PNG]

Opens the site test_explore_html.py wrote (default build/tests/explore/site)
from file:// URLs, every chromium run under `timeout 60`, and checks the
DOM Chromium dumps once the page's script has run (--dump-dom):
1. index.html: the filter script initialised (it sets data-explore="ready"
   on <body>), and every site of the image has its row with bytes in each
   bytes cell (as linked, native, xen-pv, xen-pvh).
2. index.html?op=op:OP&hide=xen-pv (OP the first row's op): exactly the
   rows of OP are visible, and the table hides the xen-pv column only.
3. a benchmark page and tour.html load with their content.
4. the checks bite: in a copy whose script throws, check 1 reports it, and
   every row is still there and visible (no JavaScript, no filter).
5. in a 1400x2000 window every platform's bytes of every site are on
   screen: no cell of a platform's column ends past the window's right
   edge, no group of bytes (an instruction's) breaks across lines, and
   the page does not scroll sideways (a script added to a copy measures
   them); and the check bites: with the bytes kept on one line, as they
   were before they wrapped, it reports xen-pv cells past the edge, and
   with bytes free to break anywhere in narrow cells, split groups.
6. the link a site's row gives itself (?op=op:OP#site-ADDR) opens the page
   on the site: the rows of OP alone shown, the site's row :target, marked
   unlike the others, scrolled into the window below the sticky column
   headings; and the check bites when the row may scroll under them.
7. a screenshot of index.html (1400x2000) is saved, default
   build/explore-screenshot.png.
The options are tests/explore/conftest.py's; --site defaults to --out,
where test_explore_html.py writes the site.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import test_explore_html as static  # noqa: E402

TIMEOUT = "60"
WINDOW = (1400, 2000)  # the smallest window every platform's bytes must fit
# Headless, as root, and off the network: the pages need none, and no name
# is looked up (the rule fails every host name).
QUIET = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--host-resolver-rules=MAP * ~NOTFOUND"]


def chromium(site, page, *flags):
    """Runs headless Chromium on site/page (which may carry a ?query);
    the CompletedProcess, stdout being the DOM with --dump-dom."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise RuntimeError("chromium is not installed (tools/setup installs it)")
    name, _, query = page.partition("?")
    url = pathlib.Path(site, name).as_uri() + ("?" + query if query else "")
    with tempfile.TemporaryDirectory() as profile:
        cmd = ["timeout", TIMEOUT, browser] + QUIET + ["--user-data-dir=" + profile] \
            + list(flags) + [url]
        return subprocess.run(cmd, capture_output=True, text=True)


def dom(site, page):
    """The page's DOM after its scripts ran, parsed; raises on a failed run."""
    p = chromium(site, page, "--dump-dom")
    if p.returncode != 0 or "<html" not in p.stdout:
        raise RuntimeError("chromium --dump-dom %s: exit %d: %s"
                           % (page, p.returncode, p.stderr.strip()[-300:]))
    return static.Page(p.stdout), p.stdout


def index_checks(site, want):
    """The script's ready mark and every site's row, in the browser's DOM;
    the problems and the parsed DOM."""
    page, _ = dom(site, "index.html")
    problems = [] if page.body.get("data-explore") == "ready" else [
        "<body> has no data-explore=\"ready\": the filter script did not run through"]
    static._pages[os.path.join(site, "index.html")] = page  # row_problems reads it
    return problems + static.row_problems(os.path.join(site, "index.html"), want), page


def filter_checks(site):
    """The op and column filters, preset from the query string."""
    first = next(iter(static.Page(open(os.path.join(site, "index.html")).read()).rows.values()))
    op = first[0]["attrs"]["data-op"]
    page, text = dom(site, "index.html?op=op:%s&hide=xen-pv" % op)
    rows = [r[0]["attrs"] for r in page.rows.values()]
    problems = ["%s (op %s) is %s" % (a["id"], a["data-op"], "hidden" if "hidden" in a else
                                      "shown") for a in rows
                if ("hidden" in a) == (a["data-op"] == op)]
    shown = sum(1 for a in rows if a["data-op"] == op)
    if not re.search(r'id="shown">%d of %d sites shown<' % (shown, len(rows)), text):
        problems.append("the count does not say %d of %d sites shown" % (shown, len(rows)))
    classes = (page.by_id.get("sites", ("", {}))[1].get("class") or "").split()
    if classes != ["hide-xen-pv"]:
        problems.append("the sites table does not hide the xen-pv column alone (class %r)"
                        % " ".join(classes))
    return problems


def content_checks(site):
    """A benchmark page and the tour render their content in the browser."""
    problems = []
    bench = sorted(n for n in os.listdir(site) if n.startswith("bench-"))
    if not bench:
        return ["no bench-*.html page"]
    page, text = dom(site, bench[0])
    if "<h1" not in text or not ("<table" in text or "make bench" in text):
        problems.append("%s: no heading, or neither a table nor the make bench line" % bench[0])
    tour, _ = dom(site, "tour.html")
    passages = [i for i in tour.ids if re.fullmatch(r"tour-\d+", i)]
    expected = [i for i in static.Page(open(os.path.join(site, "tour.html")).read()).ids
                if re.fullmatch(r"tour-\d+", i)]
    if not passages or passages != expected:
        problems.append("tour.html: %d passages in the browser, %d in the file"
                        % (len(passages), len(expected)))
    return problems


def broken_script_checks(site, want):
    """A copy whose script throws at once: the ready check must fail, and
    every row must still show (the page degrades to a plain table)."""
    copy = site + ".nojs"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(site, copy)
    index = os.path.join(copy, "index.html")
    with open(index) as f:
        text = f.read()
    with open(index, "w") as f:
        f.write(text.replace("(function () {", "(function () { throw new Error('planted');", 1))
    try:
        found, page = index_checks(copy, want)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    hidden = [sid for sid, rows in page.rows.items() if "hidden" in rows[0]["attrs"]]
    problems = [] if any("data-explore" in p for p in found) else [
        "the ready check did not notice the broken script"]
    problems += ["with no script, %s is hidden" % sid for sid in hidden]
    return problems + [p for p in found if "data-explore" not in p]


def measured(site, page, script, extra_css=""):
    """The <body> attributes of page once script (added to a copy of the
    site, run on load, after the page's own script and the browser's scroll
    to the fragment) has set them, in a WINDOW-sized window; extra_css is
    added to the copy's stylesheet, for the controls."""
    copy = site + ".measure"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(site, copy)
    try:
        index = os.path.join(copy, page.partition("?")[0])
        with open(index) as f:
            text = f.read()
        hook = "<script>window.addEventListener('load', function () { " \
            "setTimeout(function () {\n%s\n}, 0); });</script>" % script
        with open(index, "w") as f:
            f.write(text.replace("</body>", hook + "\n</body>", 1))
        with open(os.path.join(copy, "explore.css"), "a") as f:
            f.write(extra_css)
        # The budget lets the timer run before the DOM is dumped.
        p = chromium(copy, page, "--dump-dom", "--window-size=%d,%d" % WINDOW,
                     "--virtual-time-budget=5000")
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    body = static.Page(p.stdout).body
    if p.returncode != 0 or "data-measured" not in body:
        raise RuntimeError("chromium --dump-dom (measuring %s): exit %d: %s"
                           % (page, p.returncode, p.stderr.strip()[-300:]))
    return body


# Which platform cells of which rows end past the window's right edge,
# which bytes groups (each meant to stay on one line) break across lines,
# and how wide the page is.
MEASURE_WIDTH = """
  var view = document.documentElement.clientWidth, past = [], split = [];
  var rows = document.getElementById("sites").tBodies[0].rows;
  for (var i = 0; i < rows.length; i++) {
    var cells = rows[i].querySelectorAll("td.b:not(.b-linked)");
    for (var j = 0; j < cells.length; j++) {
      var right = cells[j].getBoundingClientRect().right;
      if (right > view) past.push(rows[i].id + " " + cells[j].className + " ends at " +
                                  Math.round(right));
    }
    rows[i].querySelectorAll(".bytes .g").forEach(function (g) {
      var tops = Array.prototype.map.call(g.getClientRects(), function (r) {
        return Math.round(r.top); });
      if (tops.some(function (top) { return top !== tops[0]; }))
        split.push(rows[i].id + " breaks '" + g.textContent + "' across lines");
    });
  }
  document.body.setAttribute("data-past", past.join("; "));
  document.body.setAttribute("data-split", split.join("; "));
  document.body.setAttribute("data-measured", view + " " + document.documentElement.scrollWidth);
"""


def width_problems(site, extra_css=""):
    """The platform cells past the right edge of a WINDOW-sized window, the
    bytes groups broken across lines, and a page wider than the window."""
    body = measured(site, "index.html", MEASURE_WIDTH, extra_css)
    view, scroll = (int(n) for n in body["data-measured"].split())
    problems = [p for key in ("data-past", "data-split") for p in body.get(key, "").split("; ")
                if p]
    if scroll > view:
        problems.append("the page is %d pixels wide in a %d-pixel view: it scrolls sideways"
                        % (scroll, view))
    return problems


# The stylesheet without the rules that lay the bytes out a line per
# instruction: each variant's bytes on one line, as before they wrapped.
ONE_LINE_CSS = "#sites .bytes, #sites .bytes .insn { display: inline; white-space: pre; }\n"
# Bytes free to break anywhere, in narrow cells: groups must be seen split.
BREAK_GROUPS_CSS = "#sites .bytes .g { white-space: normal; } #sites td.b { max-width: 6em; }\n"


# Where the row the fragment names is and how it looks, after the browser
# opened the page on it: its top against the sticky column headings and
# the window, whether it is hidden, :target, and its background against a
# row's that is not the target; and the ops of the rows on show.
MEASURE_TARGET = """
  var row = document.querySelector("#sites tbody tr:target");
  var head = document.querySelector("#sites thead th").getBoundingClientRect();
  var shown = [], other = null;
  Array.prototype.forEach.call(document.getElementById("sites").tBodies[0].rows, function (r) {
    if (!r.hidden) shown.push(r.getAttribute("data-op"));
    if (r !== row && !other) other = r;
  });
  var bg = function (r) { return getComputedStyle(r.cells[0]).backgroundColor; };
  document.body.setAttribute("data-target", row ? [row.id, row.hidden,
    Math.round(row.getBoundingClientRect().top), Math.round(head.bottom), window.innerHeight,
    bg(row) !== bg(other)].join(" ") : "none");
  document.body.setAttribute("data-shown-ops", shown.join(" "));
  document.body.setAttribute("data-measured", String(window.scrollY));
"""


def deep_link_problems(site, link, sid, op, extra_css=""):
    """What is wrong with index.html opened at link: it must show only op's
    rows and sid, scrolled into the window below the column headings, marked."""
    body = measured(site, "index.html" + link, MEASURE_TARGET, extra_css)
    target = body.get("data-target", "none").split()
    if target[0] != sid:
        return ["%s: the row :target is %s, not %s" % (link, target[0], sid)]
    hidden, top, head, height, marked = target[1] == "true", *map(int, target[2:5]), \
        target[5] == "true"
    problems = ["%s: the row is hidden" % link] if hidden else []
    if not head <= top < height:
        problems.append("%s: the row's top is at %d, not between the headings' bottom (%d) "
                        "and the window's (%d)" % (link, top, head, height))
    if int(body["data-measured"]) <= 0:
        problems.append("%s: the page did not scroll" % link)
    if not marked:
        problems.append("%s: the row looks like any other" % link)
    others = sorted(set(body.get("data-shown-ops", "").split()) - {op})
    if others:
        problems.append("%s: rows of %s on show too" % (link, ", ".join(others)))
    return problems


def deep_link(site):
    """The link a row gives to itself, the middle row of the op with the
    most sites (so the page can scroll it to the top): (link, its id, op)."""
    rows = [r[0] for r in static.Page(open(os.path.join(site, "index.html")).read())
            .rows.values()]
    ops = [r["attrs"]["data-op"] for r in rows]
    op = max(ops, key=ops.count)
    of_op = [r for r in rows if r["attrs"]["data-op"] == op]
    row = of_op[len(of_op) // 2]
    sid = row["attrs"]["id"]
    link = next((href for href in row["links"] if href.endswith("#" + sid)), None)
    assert link is not None and link.startswith("?op=op:%s#" % op), \
        "%s links to itself with %r, not ?op=op:%s#%s" % (sid, link, op, sid)
    return link, sid, op


def screenshot_checks(site, png):
    """A screenshot to look at (and to see that glyphs render): a real PNG."""
    os.makedirs(os.path.dirname(png), exist_ok=True)
    if os.path.exists(png):
        os.remove(png)
    p = chromium(site, "index.html", "--screenshot=" + png, "--window-size=%d,%d" % WINDOW)
    if p.returncode != 0 or not os.path.exists(png):
        return ["chromium --screenshot: exit %d: %s" % (p.returncode, p.stderr.strip()[-300:])]
    with open(png, "rb") as f:
        head = f.read(8)
    size = os.path.getsize(png)
    return [] if head == b"\x89PNG\r\n\x1a\n" and size > 10000 else [
        "%s: not a PNG of a rendered page (%d bytes)" % (png, size)]


@pytest.fixture(scope="module")
def site(args):
    if not os.path.isfile(os.path.join(args.site, "index.html")):
        pytest.fail("the site exists: no %s/index.html: run test_explore_html.py first"
                    % args.site)
    return args.site


@pytest.fixture(scope="module")
def want(args):
    return static.image_sites(args.image)


def test_index_script_ran_and_every_site_has_bytes(site, want):
    problems = index_checks(site, want)[0]
    assert not problems, "index.html: the script ran and all %d sites have bytes per " \
        "platform:\n%s" % (len(want), static.listed(problems))


def test_filters_apply(site):
    problems = filter_checks(site)
    assert not problems, "index.html?op=...&hide=xen-pv: " + static.listed(problems)


def test_bench_page_and_tour_render(site):
    problems = content_checks(site)
    assert not problems, static.listed(problems)


def test_broken_script_fails_ready_check_rows_still_show(site, want):
    problems = broken_script_checks(site, want)
    assert not problems, static.listed(problems)


def test_every_platforms_bytes_on_screen(site):
    problems = width_problems(site)
    assert not problems, "in a %dx%d window every platform's bytes are on screen, a line " \
        "per instruction:\n" % WINDOW + static.listed(problems)


@pytest.mark.parametrize("css,reported", [
    (ONE_LINE_CSS, lambda p: "ends at" in p and "b-xen-pv" in p),
    (BREAK_GROUPS_CSS, lambda p: "across lines" in p),
], ids=["bytes on one line: xen-pv cells past the edge",
        "bytes breaking anywhere: groups split"])
def test_width_check_catches(site, css, reported):
    control = width_problems(site, css)
    assert any(reported(p) for p in control), "reported: %s" % (control[:3] or "nothing")


def test_own_link_opens_the_page_on_the_site(site):
    link, sid, op = deep_link(site)
    problems = deep_link_problems(site, link, sid, op)
    assert not problems, "filtered, scrolled to, marked: " + static.listed(problems)


def test_deep_link_check_catches_row_under_the_headings(site):
    link, sid, op = deep_link(site)
    control = deep_link_problems(site, link, sid, op, "#sites tbody tr { scroll-margin-top: 0; }\n")
    assert any("headings' bottom" in p for p in control), \
        "with no room kept for the headings, the check saw nothing wrong: %s" % control


def test_screenshot(site, args):
    problems = screenshot_checks(site, args.screenshot)
    assert not problems, static.listed(problems)
