"""The HTML of tools/explore's site: the frame every page shares (the
navigation and the one stylesheet), and index.html, a row per paravirt
call site with its bytes per platform and the filter script over them.

Everything here is plain HTML and a few lines of JavaScript that only
hide rows and columns, so every page opens from the file system and
reads whole without the script.
"""

import os
import re

from pbtools.docs.markdown_html import esc
from pbtools.explore.sites import ROOT, read_links, shown, source_line, split_chain

# The first bytes column of index.html: the key (class b-KEY, &hide=KEY)
# and heading. A column per platform follows, keyed by its name.
LINKED = ("linked", "as linked")

# explore.css, the one stylesheet of every page, but for the rules that
# hide a bytes column (css()). In the sites table the bytes break only
# between instructions (bytes_html) and the disassembly anywhere, so that
# the linked bytes and every platform's of a 25-byte site fit beside each
# other in a 1400-pixel window; the column headings stay on screen, and a
# row a link names (#site-...) is marked and scrolled clear of them.
CSS = """body { font: 14px/1.4 sans-serif; margin: 0 1em 2em; color: #222; }
nav { padding: .5em 0; border-bottom: 1px solid #ccc; margin-bottom: 1em; }
code, pre, .bytes { font-family: monospace; font-size: 12px; }
pre { background: #f6f6f6; padding: .4em .6em; overflow-x: auto; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .2em .4em; vertical-align: top; text-align: left; }
th { background: #eee; }
mark { background: #ffd84d; }
.bytes { display: block; white-space: pre; }
#sites .bytes { white-space: normal; }
#sites .bytes .insn { display: block; }
#sites .bytes .g { white-space: nowrap; }
pre.dis { margin: .2em 0 0; padding: .1em .3em; background: none; }
.result { font-size: 11px; color: #555; }
.variant + .variant { border-top: 1px dashed #ccc; margin-top: .3em; padding-top: .3em; }
.src { font-size: 12px; color: #555; }
#sites td { font-size: 12px; }
#sites .src, #sites code, #sites pre { font-size: 11px; }
#sites pre.dis { white-space: pre-wrap; overflow-wrap: anywhere; }
#sites thead th { position: sticky; top: 0; z-index: 1; }
#sites tbody tr { scroll-margin-top: 5em; }
#sites td:nth-child(2) { max-width: 22em; }
#shown { margin-left: 1em; color: #555; }
tr:target { outline: 2px solid #e08a00; }
tr:target > td { background: #fff3d1; }
#filters { margin: .5em 0; }
img.chart { max-width: 100%; }
"""


def css(keys):
    """explore.css: CSS, and a rule per bytes column (keys) that hides it
    while the table has the class hide-KEY."""
    return CSS + ",\n".join("#sites.hide-%s .b-%s" % (k, k) for k in keys) + \
        " { display: none; }\n"


def page(title, body, up="", groups=(), script=""):
    """A whole page: title, the navigation, body; up leads back to OUT."""
    nav = ['<a href="%sindex.html">Call sites</a>' % up, '<a href="%stour.html">Tour</a>' % up,
           '<a href="%sdocs/README.html">Docs</a>' % up]
    if groups:
        nav.append("Benchmarks: " + ", ".join(
            '<a href="%sbench-%s.html">%s</a>' % (up, esc(g["name"]), esc(g["name"]))
            for g in groups))
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        "<title>patchbay: %s</title>" % esc(title),
        '<link rel="stylesheet" href="%sexplore.css">' % up, "</head>", "<body>",
        "<nav>%s</nav>" % " · ".join(nav), "<main>", body, "</main>", script,
        "</body>", "</html>", ""])


def site_id(site):
    """The id of a site's row, so a site can be linked: site-<hexaddr>."""
    return "site-%x" % site["addr"]


def deep_link(site):
    """index.html's link to a site: the table filtered to its op, the page
    opened on its row (FILTER_SCRIPT reads the query, the browser the fragment)."""
    return "?op=op:%s#%s" % (site["op"], site_id(site))


# An x86 instruction is at most 15 bytes, so one instruction's bytes stay
# on one line; only a longer chunk (pvsites' squeezed int3 padding) wraps,
# a run of this many bytes to a line.
INSN_MAX, PAD_GROUP = 15, 8


def byte_lines(hexbytes, disasm):
    """hexbytes cut where the instructions of disasm begin: [(text, [byte
    index])], the bytes past the last instruction one line more."""
    n = len(hexbytes.split())
    lines, at = [], 0
    for _, raw, text in disasm:
        size = len(raw.split())
        if size and at + size <= n:
            lines.append((text, list(range(at, at + size))))
            at += size
    return lines + ([("", list(range(at, n)))] if at < n else [])


def bytes_html(hexbytes, disasm, linked):
    """The bytes, a line per instruction, each line unbreakable groups (the
    instruction whole, padding in runs of PAD_GROUP); with linked given, the
    bytes that differ from it in <mark>."""
    ours, theirs = hexbytes.split(), (linked or "").split()

    def byte(k):
        if linked is None or (k < len(theirs) and theirs[k] == ours[k]):
            return esc(ours[k])
        return "<mark>%s</mark>" % esc(ours[k])

    out = []
    for text, idx in byte_lines(hexbytes, disasm):
        step = len(idx) if len(idx) <= INSN_MAX else PAD_GROUP
        groups = ['<span class="g">%s</span>' % " ".join(byte(k) for k in idx[i:i + step])
                  for i in range(0, len(idx), step)]
        title = ' title="%s"' % esc(re.sub(r"\s+", " ", text)) if text else ""
        out.append('<span class="insn"%s>%s</span>' % (title, " ".join(groups)))
    return "\n".join(out)


def disasm_text(lines):
    """objdump's instruction lines, whitespace squeezed."""
    return "\n".join(re.sub(r"\s+", " ", text) for _, _, text in lines)


def variant_html(label, result, hexbytes, disasm, linked, note=""):
    """One platform's bytes and instructions at a site (label: the
    restore_fl template, where a platform has two)."""
    head = '<span class="result">%s%s</span>' % (esc(label + ": ") if label else "", esc(result))
    if note:
        head += ' <span class="result">(%s)</span>' % esc(note)
    return ('<div class="variant">%s<code class="bytes">%s</code><pre class="dis">%s</pre></div>'
            % (head, bytes_html(hexbytes, disasm, linked), esc(disasm_text(disasm))))


def backend_variants(site, platforms):
    """{platform: [(restore_fl template or "", entry)]}: a platform taking
    the native form may show both templates."""
    columns = {p: [] for p in platforms}
    for entry in site["backends"].values():
        columns.setdefault(entry["platform"], []).append((entry["variant"] or "", entry))
    return columns


def backend_cells(site, platforms):
    """The as-linked cell of a site's row, then one per platform. A
    platform that keeps the indirect call leaves the as-linked bytes,
    shown as such."""
    linked = site["bytes"] or ""
    cells = ['<td class="b b-linked">%s</td>' % variant_html(
        "", "indirect call", linked, site["disasm"], None)]
    for column, variants in backend_variants(site, platforms).items():
        parts = []
        for label, entry in variants:
            if entry.get("bytes"):
                parts.append(variant_html(label, entry["result"], entry["bytes"],
                                          entry["disasm"], linked))
            else:
                parts.append(variant_html(label, entry.get("result") or "kept", linked,
                                          site["disasm"], linked, entry.get("note", "")))
        cells.append('<td class="b b-%s">%s</td>' % (esc(column), "".join(parts)))
    return cells


def source_cell(chain, up):
    """The caller's file:line and line text, then the wrapper(s) and outer
    frames; up is the way from OUT to the repository, where files link."""
    wrappers, caller, outer = split_chain(chain)
    if caller is None or caller[1] is None:
        return '<td class="src">?</td>'
    out = [location(caller, up),
           "<br><code>%s</code>" % esc(source_line(caller[1], caller[2]))]
    if wrappers:
        out.append("<br>via " + ", ".join("%s %s" % (esc(f), location((f, p, n), up))
                                          for f, p, n in wrappers))
    if outer:
        out.append("<br>inlined into " + ", ".join("%s %s" % (esc(f), location((f, p, n), up))
                                                   for f, p, n in outer))
    return '<td class="src">%s</td>' % "".join(out)


def location(frame, up):
    """file:line, linked (through up) to the file when it is in the repository."""
    _, path, line = frame
    text = esc("%s:%s" % (path, line))
    if path is None or os.path.isabs(path) or not os.path.exists(os.path.join(ROOT, path)):
        return text
    return '<a href="%s">%s</a>' % (esc(up + path), text)


def site_row(site, ctx):
    """One site's row: where it is, what it is, and its bytes per platform."""
    table = ctx["tables"].get(site["op"], "?")
    where = "%s+0x%x" % (site["function"], site["offset"]) if site["function"] else "?"
    what = ("<code>%s</code> (%s table)<br>%d bytes, clobbers %s<br>"
            '<span class="src">%s</span>'
            % (esc(site["op"]), esc(table), site["len"], esc(",".join(site["clobbers"]) or "none"),
               read_links(site["op"], ctx)))
    cells = ['<td><a href="%s" title="a link to this site">0x%x</a><br><code>%s</code></td>'
             % (esc(deep_link(site)), site["addr"], esc(where)),
             source_cell(ctx["chains"].get(site["addr"], []), ctx["source_up"]),
             "<td>%s</td>" % what] + backend_cells(site, ctx["platforms"])
    return '<tr id="%s" data-op="%s" data-table="%s">%s</tr>' % (
        site_id(site), esc(site["op"]), esc(table), "".join(cells))


def result_kind(result):
    """inline, call, or kept (every kept-* and rejected outcome of pvemit)."""
    return result if result in ("inline", "call") else "kept"


def first_result(site, platform, platforms):
    """inline, call or kept: what a platform makes of a site (its default
    restore_fl template's, where it has two); None without its bytes."""
    variants = backend_variants(site, platforms).get(platform)
    return result_kind(variants[0][1].get("result")) if variants else None


def shared_forms(platforms):
    """A sentence per site form more than one platform takes: their
    columns show the same bytes, the form's."""
    by_form = {}
    for platform, form in platforms.items():
        by_form.setdefault(form, []).append(platform)
    return "".join(" %s take the %s form, so their columns show the same bytes."
                   % (" and ".join(esc(p) for p in names), esc(form))
                   for form, names in by_form.items() if len(names) > 1)


def summary(sites, ctx):
    """The counts at the top of index.html: per op, per platform result;
    then per platform, with the site form it takes."""
    platforms = ctx["platforms"]
    ops = [op for op in ctx["tables"] if any(s["op"] == op for s in sites)]
    ops += sorted({s["op"] for s in sites} - set(ops))
    rows = []
    for op in ops:
        of_op = [s for s in sites if s["op"] == op]
        per_platform = []
        for platform in platforms:
            kinds = [first_result(s, platform, platforms) for s in of_op]
            per_platform.append(", ".join("%s %d" % (k, kinds.count(k))
                                          for k in ("inline", "call", "kept") if k in kinds))
        rows.append("<tr><td><code>%s</code></td><td>%s</td><td>%d</td>%s<td>%s</td></tr>"
                    % (esc(op), esc(ctx["tables"].get(op, "?")), len(of_op),
                       "".join("<td>%s</td>" % esc(c) for c in per_platform),
                       read_links(op, ctx)))
    totals = []
    for platform, form in platforms.items():
        kinds = [first_result(s, platform, platforms) for s in sites]
        totals.append("<tr><td>%s</td><td>%s</td>%s</tr>" % (esc(platform), esc(form), "".join(
            "<td>%d</td>" % kinds.count(k) for k in ("inline", "call", "kept"))))
    return "\n".join([
        "<h2>Ops</h2>", "<table><thead><tr><th>op</th><th>table</th><th>sites</th>%s"
        "<th>read</th></tr></thead><tbody>" % "".join("<th>%s</th>" % esc(p) for p in platforms)]
        + rows + [
        "</tbody></table>", "<h2>Platforms</h2>",
        "<p>Each platform rewrites its sites in one site form: the patch backend its "
        "install function chooses, which <code>pv: FORM ops</code> names at boot.%s</p>"
        % shared_forms(platforms),
        "<table><thead><tr><th>platform</th><th>site form</th><th>inline</th><th>call</th>"
        "<th>kept</th></tr></thead><tbody>"] + totals + ["</tbody></table>"])


# Shows the filter form, applies the ?op= and &hide= presets, hides rows by
# op and columns by platform, but never the row the fragment names (the
# browser scrolls to it once the script has run, on load);
# data-explore="ready" tells the browser test it ran through.
FILTER_SCRIPT = """<script>
(function () {
  var table = document.getElementById("sites");
  var form = document.getElementById("filters");
  var select = document.getElementById("filter-op");
  var boxes = form.querySelectorAll("input[data-backend]");
  var rows = table.tBodies[0].rows;
  var count = document.getElementById("shown");
  var target = location.hash && document.getElementById(location.hash.slice(1));
  function apply() {
    var want = select.value.split(":"), n = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      row.hidden = row !== target && want[0] !== "" &&
        row.getAttribute("data-" + want[0]) !== want[1];
      if (!row.hidden) n++;
    }
    boxes.forEach(function (box) {
      table.classList.toggle("hide-" + box.getAttribute("data-backend"), !box.checked);
    });
    count.textContent = n + " of " + rows.length + " sites shown";
  }
  var params = new URLSearchParams(location.search);
  if (params.get("op")) select.value = params.get("op");
  (params.get("hide") || "").split(",").forEach(function (name) {
    boxes.forEach(function (box) {
      if (box.getAttribute("data-backend") === name) box.checked = false;
    });
  });
  select.addEventListener("change", apply);
  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  form.hidden = false;
  apply();
  document.body.setAttribute("data-explore", "ready");
})();
</script>"""


def columns(ctx):
    """The bytes columns: (key, heading), the as-linked one, then each
    platform's, its heading saying the site form it takes."""
    return [LINKED] + [(p, "%s: %s form" % (p, form)) for p, form in ctx["platforms"].items()]


def filter_form(sites, ctx):
    """The filter controls, hidden until the script shows them."""
    options = ['<option value="">all sites</option>']
    for table in dict.fromkeys(ctx["tables"].values()):
        ops = [op for op, t in ctx["tables"].items() if t == table
               and any(s["op"] == op for s in sites)]
        if not ops:
            continue
        options.append('<optgroup label="%s">' % esc(table))
        options.append('<option value="table:%s">every %s op</option>' % (esc(table), esc(table)))
        options += ['<option value="op:%s">%s</option>' % (esc(op), esc(op)) for op in ops]
        options.append("</optgroup>")
    boxes = ['<label><input type="checkbox" data-backend="%s" checked> %s</label>'
             % (esc(key), esc(key if key in ctx["platforms"] else label))
             for key, label in columns(ctx)]
    return ('<form id="filters" hidden>Op: <select id="filter-op">%s</select> Bytes: %s '
            '<span id="shown"></span></form>' % ("".join(options), " ".join(boxes)))


def index_page(image_path, sites, ctx, groups):
    """index.html: the summary, the benchmark groups, the filters, a row per site."""
    head = ["<th>site, function</th><th>source</th><th>op</th>"] + [
        '<th class="b b-%s">%s</th>' % (esc(key), esc(label)) for key, label in columns(ctx)]
    body = [
        "<h1>Paravirt call sites</h1>",
        "<p>Image <code>%s</code>: %d sites. Each row is one site of <code>.pv_sites</code> "
        "(<code>tools/pvsites %s --disasm</code>): its bytes as linked, and what the patcher "
        "writes there on each platform, in the site form the platform takes; <mark>marked</mark> "
        'bytes differ from the linked ones. See <a href="docs/pv-sites.html">docs/pv-sites.md</a>.'
        "</p>" % (esc(shown(image_path)), len(sites), esc(shown(image_path))),
        summary(sites, ctx),
        "<h2>Benchmarks</h2>", "<ul>%s</ul>" % "".join(
            '<li><a href="bench-%s.html">%s</a> (<code>%s</code>)</li>'
            % (esc(g["name"]), esc(g["title"]), esc(g["name"])) for g in groups),
        "<h2>Sites</h2>", filter_form(sites, ctx),
        '<table id="sites"><thead><tr>%s</tr></thead><tbody>' % "".join(head)]
    body += [site_row(s, ctx) for s in sites]
    body.append("</tbody></table>")
    return page("call sites", "\n".join(body), groups=groups, script=FILTER_SCRIPT)
