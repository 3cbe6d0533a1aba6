"""tests/explore/test_markdown_html.py: tools/pbtools/docs/markdown_html.py, the
library and the extensions the pages need, without the image.

    pytest-3 tests/explore/test_markdown_html.py

1. Small pages, each with what it must and must not render to: GitHub's
   heading ids (a repeat suffixed -1, `code` in a title), no heading from
   a line "#DF ...", `\\|` in a table cell's code, fenced code and raw
   HTML shown as text, gen-docs' comments dropped with the block between
   them kept, a .md link made an .html one by tools/explore's doc_link.
2. Every page of README.md and docs/, rendered as tools/explore renders
   it: every relative link names a file, and a #fragment an id of the page
   it leads to (the glossary.md#pvh kind tools/doclinks checks in the
   markdown, here in the HTML).
3. The check of 2 bites: a planted link to glossary.md#no-such-term is
   reported, and so is every fragment link when headings get no ids.
"""

import os
import re
from html.parser import HTMLParser

import pytest
from pbtools.docs import markdown_html
from pbtools.explore import main as explore

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "build", "tests", "explore", "markdown")
SHOWN = 10  # problems a failure lists; the rest are counted


# (what, markdown, fragments the HTML must hold, fragments it must not)
CASES = [
    ("GitHub's heading ids", "# Same\n\n## Same\n\n### The `cli` site\n",
     ['<h1 id="same">', '<h2 id="same-1">', '<h3 id="the-cli-site">The <code>cli</code> site'],
     []),
    ("a # with no space is text", "a double fault, natively a\n#DF whose dump shows CR2\n",
     ["<p>a double fault, natively a\n#DF whose dump"], ["<h1"]),
    ("\\| in a table cell's code is |", "| option | what |\n| --- | --- |\n| `wl=on\\|off` | x |\n",
     ["<td><code>wl=on|off</code></td>"], ["\\|"]),
    ("fenced code and raw HTML are text",
     "```\ncall *0x10(%rip) <pv_irq_ops>\n```\n\nsee <b>this</b> and `<op>`\n",
     ["<pre><code>call *0x10(%rip) &lt;pv_irq_ops&gt;\n</code></pre>", "&lt;b&gt;this&lt;/b&gt;",
      "<code>&lt;op&gt;</code>"], ["<b>"]),
    ("gen-docs' comments dropped, the block kept",
     "Before:\n\n<!-- generated: boot native ^x -->\n```\nx: 1\n```\n<!-- end generated -->\n"
     "\nAfter.\n", ["<pre><code>x: 1\n</code></pre>", "<p>After.</p>"], ["generated", "&lt;!--"]),
    ("a .md link becomes .html", "[the glossary](glossary.md#pvh) and [a file](../tools/run)\n",
     ['<a href="glossary.html#pvh">', '<a href="../../tools/run">'], []),
]


class Anchors(HTMLParser):
    """The ids of a page and the href of each of its links."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.ids, self.hrefs = set(), []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href") is not None:
            self.hrefs.append(a["href"])


def rendered_docs(out, extra=None):
    """{HTML path in out: Anchors} of README.md and every docs page, each
    rendered with tools/explore's link rewriting; extra: {name: markdown}
    of more pages in docs/."""
    rendered = explore.rendered_pages(out)
    readme = os.path.join(ROOT, "README.md")
    rendered[readme] = os.path.join(out, "README.html")
    sources = {path: open(path, encoding="utf-8").read() for path in rendered
               if os.path.exists(path) and path.endswith(".md") and "build" not in path}
    for name, text in (extra or {}).items():
        path = os.path.join(ROOT, "docs", name)
        rendered[path] = os.path.join(out, "docs", name[:-3] + ".html")
        sources[path] = text
    pages = {}
    for path, text in sources.items():
        html = rendered[path]
        pages[html] = Anchors(markdown_html.markdown(
            text, lambda t, p=path, h=html: explore.doc_link(t, rendered, os.path.dirname(p),
                                                             os.path.dirname(h))))
    return pages


def link_problems(pages):
    """Each relative link that names no file, or no id of its page."""
    problems = []
    for page, anchors in sorted(pages.items()):
        for href in anchors.hrefs:
            if re.match(r"^[a-z]+:", href):
                continue
            target, _, fragment = href.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target \
                else page
            if dest not in pages and not os.path.exists(dest):
                problems.append("%s: %s: no such file" % (os.path.basename(page), href))
            elif fragment and (dest not in pages or fragment not in pages[dest].ids):
                problems.append("%s: %s: no id %s there" % (os.path.basename(page), href,
                                                              fragment))
    return problems


def listed(problems):
    """problems one a line, the first SHOWN of them and how many more."""
    more = ["... and %d more" % (len(problems) - SHOWN)] if len(problems) > SHOWN else []
    return "\n".join(problems[:SHOWN] + more)


@pytest.mark.parametrize("text,must,must_not", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_small_page(text, must, must_not):
    site = os.path.join(ROOT, "site", "docs")  # as if rendered there: ../../ is ROOT
    html = markdown_html.markdown(text, lambda t: explore.doc_link(
        t, {os.path.join(ROOT, "docs", "glossary.md"): os.path.join(site, "glossary.html")},
        os.path.join(ROOT, "docs"), site))
    problems = (["missing %r in %r" % (m, html) for m in must if m not in html]
                + ["unwanted %r in %r" % (m, html) for m in must_not if m in html])
    assert not problems, listed(problems)


@pytest.fixture(scope="module")
def pages():
    return rendered_docs(OUT)


def fragment_links(pages):
    return sum(1 for a in pages.values() for h in a.hrefs if "#" in h)


def test_every_link_resolves_in_the_html(pages):
    problems = link_problems(pages)
    assert not problems, "every link of README.md and docs/ resolves in the HTML (%d pages, " \
        "%d links with a fragment):\n%s" % (len(pages), fragment_links(pages), listed(problems))


def test_link_check_catches_a_missing_heading():
    planted = link_problems(rendered_docs(OUT, {"planted.md": "[x](glossary.md#no-such-term)\n"}))
    assert any("no id no-such-term" in p for p in planted), "reported: %s" % planted


def test_no_heading_ids_every_fragment_link_reported(pages, monkeypatch):
    fragments = fragment_links(pages)
    monkeypatch.setattr(markdown_html.HeadingIds, "run", lambda self, root: None)
    missing = link_problems(rendered_docs(OUT))
    assert len(missing) >= fragments > 0, \
        "%d of %d fragment links reported" % (len(missing), fragments)
