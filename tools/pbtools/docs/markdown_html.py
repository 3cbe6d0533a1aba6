r"""Markdown to HTML for tools/explore (docs/, the tour, the benchmark
pages): Debian's python3-markdown (tools/setup installs it) with its
tables and fenced_code extensions, and three small ones of our own for
what the library does not do as the pages need:

- headings get GitHub's ids (glossary.slug of the title as written, a
  repeat suffixed -1, -2, ...), so a link such as glossary.md#pvh works
  on GitHub and in the rendering alike (tools/doclinks checks the
  former, tests/explore the latter);
- every link target goes through a function, which makes a .md link
  point at its rendering;
- HTML comments (tools/gen-docs' block markers, the glossary's `also:`
  lines) are notes to the tools, dropped, and any other raw HTML is
  shown as text: the pages are prose about code, where `<op>` is text.

and two rules of GitHub's where the library differs: a heading's #s are
followed by a space (a line "#DF ..." is text), and `\|` in a table cell
is a | even inside `code`.

    markdown(text, link=None, heading_id=None, headings=None) -> HTML
    esc(text) -> text safe in HTML
"""

import html
import re

from pbtools import imports
from pbtools.docs import glossary

library = imports.debian("markdown", "python3-markdown")
from markdown.blockprocessors import HashHeaderProcessor  # noqa: E402
from markdown.extensions import Extension  # noqa: E402
from markdown.preprocessors import Preprocessor  # noqa: E402
from markdown.treeprocessors import Treeprocessor  # noqa: E402

COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def esc(text):
    """text made safe for HTML, attribute values included."""
    return html.escape(str(text), quote=True)


class DropComments(Preprocessor):
    """Removes HTML comments, and the line end after each, before parsing."""

    def run(self, lines):
        return COMMENT.sub("", "\n".join(lines)).split("\n")


class SpacedHashHeader(HashHeaderProcessor):
    """The library's # heading, but only with a space after the #s."""

    RE = re.compile(r"(?:^|\n)(?P<level>#{1,6})[ \t]+(?P<header>(?:\\.|[^\\])*?)#*(?:\n|$)")


class CellPipes(Treeprocessor):
    """Turns a table cell's \\| into | (the library keeps the backslash in code)."""

    def run(self, root):
        for cell in root.iter():
            if cell.tag in ("td", "th") and cell.text:
                cell.text = cell.text.replace("\\|", "|")


class HeadingIds(Treeprocessor):
    """Gives each heading its id from the title as written (this runs
    before inline markup is parsed, so `code` in a title counts as GitHub
    counts it); titles go into headings, a dict, as {title: id}."""

    def __init__(self, md, heading_id, headings):
        super().__init__(md)
        self.heading_id, self.headings = heading_id, headings

    def run(self, root):
        seen = {}
        for h in root.iter():
            if h.tag not in HEADINGS:
                continue
            title = h.text or ""
            if self.heading_id:
                made = self.heading_id(title)
            else:
                base = glossary.slug(title)
                seen[base] = seen.get(base, -1) + 1
                made = base if seen[base] == 0 else "%s-%d" % (base, seen[base])
            if self.headings is not None:
                self.headings.setdefault(title, made)
            h.set("id", made)


class Links(Treeprocessor):
    """Passes every link target (and image source) through link."""

    def __init__(self, md, link):
        super().__init__(md)
        self.link = link

    def run(self, root):
        for el in root.iter():
            for attr in ("href", "src"):
                if el.get(attr) is not None:
                    el.set(attr, self.link(el.get(attr)))


class PatchbayPages(Extension):
    """The extensions above, and raw HTML off."""

    def __init__(self, link, heading_id, headings):
        super().__init__()
        self.link, self.heading_id, self.headings = link, heading_id, headings

    def extendMarkdown(self, md):
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.preprocessors.register(DropComments(md), "drop_comments", 35)
        md.parser.blockprocessors.register(SpacedHashHeader(md.parser), "hashheader", 70)
        # Above the inline parser (20): cells and titles as written.
        md.treeprocessors.register(CellPipes(md), "cell_pipes", 31)
        md.treeprocessors.register(HeadingIds(md, self.heading_id, self.headings),
                                   "heading_ids", 30)
        if self.link:
            md.treeprocessors.register(Links(md, self.link), "links", 5)


def markdown(text, link=None, heading_id=None, headings=None):
    """The HTML of a page of markdown: link maps each link target,
    heading_id each heading's title to its id (default GitHub's), and
    headings, a dict, is filled with {title: id}."""
    md = library.Markdown(extensions=["tables", "fenced_code",
                                      PatchbayPages(link, heading_id, headings)])
    return md.convert(text)
