"""explore: a static HTML site to click through every paravirt call site.

    tools/explore [--image PATH] [--bench DIR] [--out DIR]

Writes OUT (default build/explore) from the image (default
build/patchbay.elf) and the last benchmark run in DIR (default build/bench,
as tools/bench writes it):

- index.html: one row per call site (id site-<hexaddr>): where it is in the
  source (the caller's line, through the pv/ wrappers addr2line names), the
  function holding it, its op and table, length, clobbers, and its bytes
  (a line per instruction) and disassembly as linked and as each platform
  patches it (native, xen-pv, xen-pvh, each heading naming the site form
  it takes), the bytes a platform changes marked. Filters by op and by
  column are a few lines of plain JavaScript; without it every row and
  column shows. index.html?op=op:NAME (or table:NAME) and
  &hide=linked,xen-pv preset them; a site's address links to
  ?op=op:OP#site-<hexaddr>, which opens the page on it.
- bench-<group>.html: each benchmark group the image registers, with its
  tables from DIR/results.json (tools/bench_report.py) and the chart; the
  pte page also the Linux section when DIR/linux.json is there (make
  bench-linux). Run or no run, each then shows the figures README.md and
  docs/ quote for its benchmarks (tools/pbtools/explore/quotes.py), labelled
  with where they are quoted.
- bench-lifecycle.html: the steps of DIR/lifecycle.json (make
  bench-lifecycle), then the recorded run docs/lifecycle.md quotes
  (docs/lifecycle-run.json).
- tour.html: the guided tour (tools/tour), one heading id="tour-N" a passage.
- docs/NAME.html: every docs/NAME.md, rendered by
  tools/pbtools/docs/markdown_html.py (headings get GitHub-style ids, .md
  links become .html).

The site data comes from pbtools.elf.pvsites (tools/pvsites' module: the
same descriptors, pvemit bytes and objdump disassembly it prints with
--json --disasm) and `addr2line -i`, read by sites.py beside this module;
pages.py writes index.html and the frame of every page. This module renders the
benchmark, tour and docs pages and writes OUT. Everything opens from the
file system: relative links, no external resources, one stylesheet. The
output depends only on its inputs, so two runs on the same image write the
same bytes. OUT is replaced whole; a directory explore did not write is
refused. Prints the path of index.html. Exit status: 0 on success, 2 for bad
input (one line).
"""

import argparse
import os
import re
import shutil
import sys

from pbtools import paths
from pbtools.bench import catalog as bench_catalog
from pbtools.bench import lifecycle as bench_lifecycle
from pbtools.bench import linux as bench_linux
from pbtools.bench import report as bench_report
from pbtools.bench import runs as bench_runs
from pbtools.docs import glossary
from pbtools.docs.markdown_html import esc, markdown
from pbtools.explore import quotes as explore_quotes
from pbtools.explore.pages import LINKED, css, index_page, page
from pbtools.explore.sites import (InputError, addr2line, op_tables, platforms, read_sites, shown,
                                   tour_links)
from pbtools.paths import ROOT

DOCS = os.path.join(ROOT, "docs")
MARKER = ".explore"  # marks OUT as ours, so a rerun may replace it


# ---- benchmarks ----

def read_results(bench_dir):
    """results.json of the last run in bench_dir, or None when there is none."""
    path = os.path.join(bench_dir, "results.json")
    try:
        data = bench_runs.load(path)
        if data is None:
            return None
        bench_runs.index(data)
        if "timing" not in data["conditions"]:
            raise KeyError("conditions.timing")
    except (bench_runs.ResultsError, KeyError, TypeError) as e:
        raise InputError("%s: not a tools/bench results file (%s)" % (shown(path), e)) from e
    return data


def group_tables(group, cat, idx):
    """The report's markdown tables for one group (as bench_report lays them out)."""
    names = [b["name"] for b in cat["benches"]
             if b["group"] == group and b["name"] in bench_runs.measured(idx)]
    if not names:
        return []
    if group == "calls":
        return bench_report.calls_table(idx, cat)
    lines = bench_report.table(idx, names)
    if group == "pte":
        lines += ["", "Against Xen's pte modes (`xen.mmu=`), each as a ratio to normal:", ""]
        lines += bench_report.pte_table(idx, cat)
    return lines


def last_run_markdown(group, cat, data, bench_dir, out):
    """The markdown of one group's figures in the last run in bench_dir."""
    benches = [b for b in cat["benches"] if b["group"] == group["name"]]
    idx = bench_runs.index(data)
    conds = dict(data["conditions"], configs=len(data["configs"]))
    tables = group_tables(group["name"], cat, idx)
    left = [b["name"] for b in benches if b["name"] not in bench_runs.measured(idx)]
    md = ["## Last run", ""] + bench_report.conditions_text(conds) + [""]
    md += tables or ["No benchmark of this group was measured in this run."]
    if left and tables:
        md += ["", "Not measured in this run: %s." % ", ".join("`%s`" % n for n in left)]
    md += bench_report.notes(conds)
    linux = (bench_runs.load(os.path.join(bench_dir, "linux.json"))
             if group["name"] == "pte" else None)
    if linux:  # make bench-linux's Linux beside patchbay, mprotect and all
        md += bench_linux.section(linux)
    report = os.path.join(bench_dir, "report.md")
    if os.path.exists(report):
        md += ["", "The whole report: [%s](%s)." % (shown(report), os.path.relpath(report, out))]
    return md


def section_links(places, ctx):
    """Links to sections, given as (path, heading): a docs page's heading
    on its rendering, README.md (which the site does not render) by its file."""
    links = []
    for path, heading in places:
        if path.startswith("docs/"):
            anchor = ctx["doc_ids"].get(os.path.basename(path), {}).get(heading)
            href = path[:-3] + ".html" + ("#" + anchor if anchor else "")
        else:
            href = ctx["source_up"] + path
        text = path + (" § " + heading if heading else "")
        links.append('<a href="%s">%s</a>' % (esc(href), esc(text)))
    return ", ".join(links)


def quoted_html(names, has_run, ctx):
    """The section of figures README.md and docs/ quote for the benchmarks
    in names, each labelled with where it is quoted; its links made to work
    from OUT."""
    found = explore_quotes.quotes(set(names), ctx["blocks"])
    out = ['<h2 id="quoted">As quoted in the docs</h2>']
    if not found:
        prose = explore_quotes.mentions(set(names))
        return "\n".join(out + ["<p>README.md and docs/ quote no generated figures of this "
                                 "group.%s</p>" % (" Their prose speaks of its benchmarks in: "
                                                   + section_links(prose, ctx) if prose else "")])
    said = explore_quotes.conditions(ctx["blocks"])
    out.append("<p>%s README.md and docs/ quote for this group's benchmarks, each from a "
               "block <code>tools/gen-docs</code> generates from runs of this tree, labelled "
               "with where it is quoted (tables cut to this group's rows).%s</p>"
               % ("To set beside the run above, the figures" if has_run else "The figures",
                  " README.md says of its tables:" if said else ""))
    if said:
        out.append('<blockquote class="quoted">%s</blockquote>'
                   % markdown(said, lambda t: doc_link(t, ctx["rendered"], ROOT, ctx["out"])))
    for text, blocks in found:
        src_dir = os.path.dirname(os.path.join(ROOT, blocks[0]["path"]))
        out.append('<p class="src">As quoted in %s (a <code>%s</code> block):</p>'
                   % (section_links([(b["path"], b["heading"]) for b in blocks], ctx),
                      esc(blocks[0]["kind"])))
        out.append('<div class="quoted">%s</div>' % markdown(
            text, lambda t: doc_link(t, ctx["rendered"], src_dir, ctx["out"])))
    return "\n".join(out)


def bench_page(group, cat, data, bench_dir, ctx):
    """bench-<group>.html: what one op is, the figures of the last run, and
    those README.md and docs/ quote."""
    benches = [b for b in cat["benches"] if b["group"] == group["name"]]
    md = ["# %s" % group["title"], "",
          "Group `%s`: the benchmarks the image registers (`BENCH_DEFINE`); one op is:" %
          group["name"], ""]
    md += ["- `%s`: %s%s" % (b["name"], b["description"],
                             " (needs %s)" % ", ".join(b["needs"]) if b["needs"] else "")
           for b in benches]
    chart = ""
    if data is None:
        md += ["", "No benchmark run in `%s` yet: run `make bench`. Below, the figures the "
               "docs quote." % shown(bench_dir)]
    else:
        md += [""] + last_run_markdown(group, cat, data, bench_dir, ctx["out"])
        if os.path.exists(os.path.join(bench_dir, bench_report.CHART)):
            chart = ('<h2 id="chart">Headline chart (all groups)</h2>\n'
                     '<p><img class="chart" src="chart.svg" alt="headline comparisons"></p>')
    body = "\n".join([markdown("\n".join(md)),
                      quoted_html([b["name"] for b in benches], data is not None, ctx), chart])
    return page("benchmarks: " + group["name"], body, groups=ctx["groups"])


# The lifecycle steps (make bench-lifecycle) are no BENCH_DEFINE group, so
# their page is listed with the groups under a name no group may take.
LIFECYCLE = {"name": "lifecycle", "title": "Save, restore and migration (make bench-lifecycle)"}


def lifecycle_page(bench_dir, ctx):
    """bench-lifecycle.html: the steps of the last make bench-lifecycle in
    bench_dir, and the recorded run docs/lifecycle.md quotes."""
    record = bench_runs.load(bench_lifecycle.RECORD)
    ran = bench_runs.load(os.path.join(bench_dir, "lifecycle.json"))
    md = ["# " + LIFECYCLE["title"], "",
          "`make bench-lifecycle` saves, restores, moves and live-migrates a running domU "
          "under Xen's toolstack ([docs/lifecycle.md](docs/lifecycle.html))."]
    if ran:
        md += ["", "## Last run", ""] + bench_lifecycle.section(ran)[3:]
    else:
        md += ["", "No lifecycle run in `%s` yet: run `make bench-lifecycle`. Below, the run "
               "the docs quote." % shown(bench_dir)]
    body = [markdown("\n".join(md)), '<h2 id="quoted">As quoted in the docs</h2>']
    if record:
        body.append(markdown("\n".join([
            "As recorded in [docs/lifecycle-run.json](%s) on %s, the run "
            "[docs/lifecycle.md](docs/lifecycle.html) quotes:"
            % (ctx["source_up"] + "docs/lifecycle-run.json", record["conditions"]["date"]), ""]
            + bench_lifecycle.section(record)[3:])))
    else:
        body.append("<p>There is no docs/lifecycle-run.json to quote.</p>")
    return page("benchmarks: lifecycle", "\n".join(body), groups=ctx["groups"])


# ---- tour and docs ----

def tour_markdown(tour, passages, out):
    """The tour as tools/tour renders build/tour.md (glossary links and all),
    as if written to OUT/tour.md so its relative links count from OUT."""
    return tour.render(passages, os.path.join(out, "tour.md"))


def tour_page(text, passages, link, source_up, groups):
    """tour.html: the tour's markdown with a contents list before the first
    passage, headings id="tour-N", and each `file:line` linked to its file
    (source_up: the way from OUT up to the repository)."""
    contents = ["- [%d. %s](#tour-%d)" % (p.number, p.title.replace("]", ""), p.number)
                for p in passages]
    first = text.find("\n## ")
    if first >= 0:
        text = text[:first] + "\n" + "\n".join(contents) + "\n" + text[first:]

    def where(m):
        path = os.path.join(ROOT, m.group(1))
        return "[`%s`](%s)" % (m.group(0).strip("`"), source_up + m.group(1)) \
            if os.path.isfile(path) else m.group(0)

    text = re.sub(r"^`([\w./-]+):\d+`$", where, text, flags=re.M)

    def heading_id(title):
        m = re.match(r"(\d+)\. ", title)
        return "tour-" + m.group(1) if m else glossary.slug(title)

    return page("tour", markdown(text, link, heading_id), groups=groups)


def doc_link(target, rendered, src_dir, out_dir):
    """A link of a docs page, made to work from its rendering in out_dir:
    another rendered page by its .html, anything else by its path."""
    if re.match(r"^[a-z]+:|^#", target):
        return target
    path, _, frag = target.partition("#")
    resolved = os.path.normpath(os.path.join(src_dir, path))
    resolved = rendered.get(resolved, resolved)
    return os.path.relpath(resolved, out_dir) + ("#" + frag if frag else "")


def doc_names():
    """NAME.md of every page in docs/, sorted so the output does not depend
    on the order of the directory."""
    return sorted(n for n in os.listdir(DOCS) if n.endswith(".md"))


def rendered_pages(out):
    """{markdown file: its HTML in OUT}: every docs/NAME.md, and the tour."""
    pages = {os.path.join(DOCS, n): os.path.join(out, "docs", n[:-3] + ".html")
             for n in doc_names()}
    pages[paths.build("tour.md")] = os.path.join(out, "tour.html")
    return pages


def docs_pages(out, rendered, groups):
    """{docs/NAME.html: page} for every docs/NAME.md, and {NAME.md: heading ids}."""
    out_dir = os.path.join(out, "docs")
    pages, ids = {}, {}
    for n in doc_names():
        with open(os.path.join(DOCS, n)) as f:
            text = f.read()
        ids[n] = {}
        title = re.search(r"^# +(.*)$", text, re.M)
        body = '<p class="src">Rendered from <a href="%s">docs/%s</a>.</p>\n%s' % (
            esc(os.path.relpath(os.path.join(DOCS, n), out_dir)), esc(n),
            markdown(text, lambda t: doc_link(t, rendered, DOCS, out_dir), headings=ids[n]))
        pages[os.path.join("docs", n[:-3] + ".html")] = page(
            title.group(1) if title else n, body, up="../", groups=groups)
    return pages, ids


# ---- main ----

def check_out(out):
    """Refuses an OUT that explore did not write, before any work is done."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise InputError("%s: not a directory" % shown(out))
    if os.path.isdir(out) and os.listdir(out) and not os.path.exists(os.path.join(out, MARKER)):
        raise InputError("%s: not empty and not written by tools/explore; "
                         "choose another --out" % shown(out))


def prepare_out(out):
    """An empty OUT (and OUT/docs): what a previous run wrote goes, so no
    page of a benchmark group since removed stays behind."""
    check_out(out)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "docs"))


def write(out, name, text):
    """Writes a page as UTF-8 with LF line ends on any host: same input, same bytes."""
    with open(os.path.join(out, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def parse_args(argv):
    """The options; the defaults are the paths make uses."""
    p = argparse.ArgumentParser(prog="tools/explore", description=__doc__.strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--image", default=paths.build("patchbay.elf"))
    p.add_argument("--bench", default=paths.build("bench"),
                   help="the benchmark run to show (default build/bench)")
    p.add_argument("--out", default=paths.build("explore"))
    return p.parse_args(argv)


def render_pages(args, out):
    """({name: page} for every page of OUT, the benchmark results or None),
    from every input: a bad one raises InputError before anything is written."""
    sites = read_sites(args.image)
    try:
        cat = bench_catalog.catalog(args.image)
    except (bench_catalog.CatalogError, ValueError) as e:
        raise InputError(str(e)) from e
    data = read_results(args.bench)
    from pbtools.docs import tour
    passages = tour.passages()
    tables = op_tables()
    if any(g["name"] == LIFECYCLE["name"] for g in cat["groups"]):
        raise InputError("a benchmark group is named %s, as the lifecycle page is"
                         % LIFECYCLE["name"])
    groups = cat["groups"] + [LIFECYCLE]
    rendered = rendered_pages(out)
    docs, doc_ids = docs_pages(out, rendered, groups)
    source_up = os.path.relpath(ROOT, out) + "/"
    ctx = dict(tables=tables, doc_ids=doc_ids, source_up=source_up, platforms=platforms(),
               chains=addr2line(args.image, [s["addr"] for s in sites]),
               tour=tour_links(passages, list(tables) + [s["op"] for s in sites]),
               groups=groups, out=out, rendered=rendered,
               blocks=explore_quotes.generated_blocks())
    pages = {"index.html": index_page(args.image, sites, ctx, groups),
             "tour.html": tour_page(tour_markdown(tour, passages, out), passages,
                                    lambda t: doc_link(t, rendered, out, out), source_up,
                                    groups)}
    for g in cat["groups"]:
        pages["bench-%s.html" % g["name"]] = bench_page(g, cat, data, args.bench, ctx)
    pages["bench-%s.html" % LIFECYCLE["name"]] = lifecycle_page(args.bench, ctx)
    pages.update(docs)
    pages["explore.css"] = css([LINKED[0]] + list(ctx["platforms"]))
    return pages, data


def build(args):
    """Reads every input first, then writes the site: bad input leaves OUT alone."""
    if not os.path.isfile(args.image):
        raise InputError("%s: no such image (make image builds it)" % args.image)
    out = os.path.abspath(args.out)
    check_out(out)
    pages, data = render_pages(args, out)
    prepare_out(out)
    for name, text in sorted(pages.items()):
        write(out, name, text)
    write(out, MARKER, "written by tools/explore\n")
    chart = os.path.join(args.bench, bench_report.CHART)
    if data is not None and os.path.exists(chart):
        shutil.copyfile(chart, os.path.join(out, bench_report.CHART))
    return os.path.join(out, "index.html")


def main(argv=None):
    """Bad input is one line on stderr and exit 2; success prints index.html."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        index = build(args)
    except InputError as e:
        print("explore: %s" % e, file=sys.stderr)
        return 2
    print(shown(index))
    return 0
