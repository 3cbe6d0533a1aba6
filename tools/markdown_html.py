"""The small markdown-to-HTML converter tools/explore renders docs/, the
tour and the benchmark pages with.

It covers the subset docs/ uses, no more: headings (with GitHub's ids, so
links into a page work on GitHub and in the rendering alike), paragraphs,
fenced and indented code, tables, flat lists, and inline `code`, links,
**bold** and *emphasis*; small enough that the site needs nothing beyond
Python's standard library.

    markdown(text, link=None, heading_id=None, headings=None) -> HTML
    inline(text, link=None) -> HTML
    esc(text) -> text safe in HTML
"""

import html
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glossary  # noqa: E402


def esc(text):
    """text made safe for HTML, attribute values included."""
    return html.escape(str(text), quote=True)


INLINE = re.compile(r"`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|\*\*((?s:.+?))\*\*"
                    r"|(?<![\w*])\*([^*\s](?:[^*]*[^*\s])?)\*(?![\w*])")


def inline(text, link=None):
    """Inline markdown: `code`, [text](url) (url through link), **bold**, *emphasis*."""
    out, at = [], 0
    for m in INLINE.finditer(text):
        out.append(esc(text[at:m.start()]))
        if m.group(1) is not None:
            out.append("<code>%s</code>" % esc(m.group(1)))
        elif m.group(2) is not None:
            url = link(m.group(3)) if link else m.group(3)
            out.append('<a href="%s">%s</a>' % (esc(url), inline(m.group(2), link)))
        elif m.group(4) is not None:
            out.append("<strong>%s</strong>" % inline(m.group(4), link))
        else:
            out.append("<em>%s</em>" % inline(m.group(5), link))
        at = m.end()
    return "".join(out) + esc(text[at:])


def md_table(rows, link):
    """A markdown table (header, separator, rows) as HTML."""
    def cells(line):  # a \| is a | inside a cell, as on GitHub
        inner = re.sub(r"^\||(?<!\\)\|$", "", line.strip())
        return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]

    out = ["<table>", "<thead><tr>%s</tr></thead>" % "".join(
        "<th>%s</th>" % inline(c, link) for c in cells(rows[0])), "<tbody>"]
    out += ["<tr>%s</tr>" % "".join("<td>%s</td>" % inline(c, link) for c in cells(r))
            for r in rows[2:]]
    return out + ["</tbody>", "</table>"]


HEADING = re.compile(r"^(#{1,6}) +(.*?)[ #]*$")
LIST_ITEM = re.compile(r"^( {0,3})([-*]|\d+\.) +(.*)$")


def md_list(lines, i, link):
    """The list starting at lines[i]; indented lines continue an item."""
    ordered = LIST_ITEM.match(lines[i]).group(2)[0].isdigit()
    items = []
    while i < len(lines):
        m = LIST_ITEM.match(lines[i])
        if m:
            items.append([m.group(3)])
        elif lines[i].startswith(" ") and lines[i].strip():
            items[-1].append(lines[i].strip())
        elif not lines[i].strip() and i + 1 < len(lines) and LIST_ITEM.match(lines[i + 1]):
            pass
        else:
            break
        i += 1
    tag = "ol" if ordered else "ul"
    body = ["<li>%s</li>" % inline(" ".join(item), link) for item in items]
    return ["<%s>" % tag] + body + ["</%s>" % tag], i


def md_block(lines, i, link, heading_id):
    """One block from lines[i] as HTML lines, and the index after it."""
    line = lines[i]
    fence = re.match(r"^\s*```", line)
    if fence:
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```", lines[j]):
            j += 1
        return ["<pre><code>%s</code></pre>" % esc("\n".join(lines[i + 1:j]))], j + 1
    m = HEADING.match(line)
    if m:
        n = len(m.group(1))
        return ['<h%d id="%s">%s</h%d>' % (n, esc(heading_id(m.group(2))),
                                           inline(m.group(2), link), n)], i + 1
    if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|\s*$", lines[i + 1]):
        j = i
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        return md_table(lines[i:j], link), j
    if LIST_ITEM.match(line):
        return md_list(lines, i, link)
    if line.startswith("    "):
        j = i
        while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
            j += 1
        while not lines[j - 1].strip():
            j -= 1
        code = "\n".join(l[4:] for l in lines[i:j])
        return ["<pre><code>%s</code></pre>" % esc(code)], j
    j = i + 1
    while j < len(lines) and lines[j].strip() and not HEADING.match(lines[j]) \
            and not re.match(r"^\s*```", lines[j]) and not LIST_ITEM.match(lines[j]):
        j += 1
    return ["<p>%s</p>" % inline("\n".join(l.strip() for l in lines[i:j]), link)], j


def markdown(text, link=None, heading_id=None, headings=None):
    """Markdown (the subset docs/ uses) as HTML. HTML comments are dropped.
    headings, a dict, is filled with {title: id}."""
    ids = {}

    def unique_id(title):
        base = glossary.slug(title)
        ids[base] = ids.get(base, -1) + 1
        made = base if ids[base] == 0 else "%s-%d" % (base, ids[base])
        if headings is not None:
            headings.setdefault(title, made)
        return made

    lines = re.sub(r"<!--.*?-->\n?", "", text, flags=re.S).splitlines()
    out, i = [], 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        block, i = md_block(lines, i, link, heading_id or unique_id)
        out += block
    return "\n".join(out)

