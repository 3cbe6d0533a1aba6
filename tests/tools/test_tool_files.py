#!/usr/bin/env python3
"""The shape of tools/: no file over LIMIT lines but those OVER_LIMIT
still allows, every file named with an extension or starting with a
shebang (so linters and duplicate checks that pick files either way see
it), no cycle in the tools' Python import graph (the package pbtools's
modules, absolute and relative imports, and the scripts that import
them), and no change to sys.path but where SYS_PATH says why.
Files are the tree's, tracked or not, but not what git ignores (build
outputs, __pycache__). Each failure lists its offenders."""

import ast
import os
import re
import subprocess

import pytest
from pbtools.scripts import language  # the one rule for what is a Python script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOWN = 10  # offenders a failure lists; the rest are counted
TOOLS = os.path.join(ROOT, "tools")
LIMIT = 420
# Files still over LIMIT, to be split and taken off one by one; a file
# that is no longer over must leave the list, so it only ever shrinks.
OVER_LIMIT = set()
# The files of tools/ that may add to sys.path, and why.
SYS_PATH = {
    "pbtools/imports.py": "Debian's dist-packages, for a python3 that is not Debian's",
    "gdb/patchbay.py": "gdb's Python starts without tools/ on its path",
}
# A package whose modules import each other in a circle, one absolutely
# and one relatively, for the cycle check to find.
CIRCLE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "from pkg.sub import b\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/b.py": "from .. import a\n",
    "pkg/c.py": "import pkg.a\nfrom . import sub\n",
}


def tool_files(root):
    """Paths under root/tools/, relative to tools/, that git tracks or
    would track."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", "tools"],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    return sorted(os.path.relpath(p, "tools") for p in set(out.splitlines())
                  if os.path.isfile(os.path.join(root, p)))


def line_count(path):
    with open(path, "rb") as f:
        return len(f.read().splitlines())


def has_shebang(path):
    with open(path, "rb") as f:
        return f.read(2) == b"#!"


def module_name(f):
    """The dotted name tools/f is imported by (pbtools/run/main.py is
    pbtools.run.main, a package's __init__.py the package), or None for a
    script without a .py name, which nothing can import."""
    if not f.endswith(".py"):
        return None
    parts = f[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source, package):
    """The dotted names a Python source imports, absolute or relative to
    package (its own package), with the packages that contain them: Python
    runs each one's __init__.py on the way down."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            # from PKG import NAME: NAME may be a module of PKG.
            found = [base] + ["%s.%s" % (base, a.name) if base else a.name for a in node.names]
        else:
            continue
        for name in found:
            parts = name.split(".")
            names |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return names


def import_graph(sources):
    """{file: the tools/ files it imports}, over the Python sources given
    ({path under tools/: text}); tools/ is what is on their path."""
    modules = {module_name(f): f for f in sources if module_name(f)}
    graph = {}
    for f, text in sources.items():
        name = module_name(f) or ""
        package = name if f.endswith("__init__.py") else name.rpartition(".")[0]
        graph[f] = sorted({modules[m] for m in imported_modules(text, package)
                           if m in modules} - {f})
    return graph


def cycles(graph):
    """One cycle, as a path a -> ... -> a, of each strongly connected part
    of graph that has one (Tarjan's algorithm)."""
    index, low, stack, on_stack, parts = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.add(w)
                if w == v:
                    break
            if len(part) > 1 or v in graph.get(v, []):
                parts.append(part)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [" -> ".join(path_back(graph, part)) for part in parts]


def path_back(graph, part):
    """A shortest path from part's first member back to itself, inside part."""
    start = min(part)
    paths, seen = [[start]], set()
    while paths:
        path = paths.pop(0)
        for w in graph.get(path[-1], []):
            if w == start:
                return path + [start]
            if w in part and w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return [start, start]


def listed(problems):
    """problems one a line, the first SHOWN of them and how many more."""
    more = ["... and %d more" % (len(problems) - SHOWN)] if len(problems) > SHOWN else []
    return "\n  " + "\n  ".join(problems[:SHOWN] + more)


@pytest.fixture(scope="module")
def files():
    return tool_files(ROOT)


@pytest.fixture(scope="module")
def sources(files):
    """{path under tools/: text} of the Python tools."""
    found = {}
    for f in files:
        if language(os.path.join("tools", f)) == "python":
            with open(os.path.join(TOOLS, f), errors="replace") as src:
                found[f] = src.read()
    return found


@pytest.fixture(scope="module")
def sizes(files):
    return {f: line_count(os.path.join(TOOLS, f)) for f in files}


def test_tools_has_its_files(files):
    assert len(files) >= 20, "tools/ has its files: found %d" % len(files)


def test_no_file_over_limit(sizes):
    over = ["tools/%s: %d lines" % (f, n) for f, n in sorted(sizes.items())
            if n > LIMIT and f not in OVER_LIMIT]
    assert not over, "no tools/ file over %d lines but those OVER_LIMIT allows:%s" % (
        LIMIT, listed(over))


def test_over_limit_files_are_still_over(sizes):
    under = ["tools/%s: %s; take it off OVER_LIMIT" % (
        f, "%d lines" % sizes[f] if f in sizes else "gone")
        for f in sorted(OVER_LIMIT) if sizes.get(f, 0) <= LIMIT]
    assert not under, "every file OVER_LIMIT allows is still over %d lines:%s" % (
        LIMIT, listed(under))


def test_every_file_has_extension_or_shebang(files):
    bare = ["tools/%s" % f for f in files if "." not in os.path.basename(f)
            and not has_shebang(os.path.join(TOOLS, f))]
    assert not bare, "every tools/ file has an extension or a shebang:" + listed(bare)


def test_import_graph_covers_the_python_tools(sources):
    graph = import_graph(sources)
    assert len(graph) >= 20, "the import graph covers the Python tools: found %d" % len(graph)


def test_import_graph_has_no_cycle(sources):
    found = cycles(import_graph(sources))
    assert not found, "the tools' import graph has no cycle:" + listed(found)


def test_cycle_check_sees_absolute_and_relative_imports():
    assert cycles(import_graph(CIRCLE)) == ["pkg/a.py -> pkg/sub/b.py -> pkg/a.py"], \
        "the cycle check sees one made of absolute and relative imports"


def test_sys_path_changed_only_where_allowed(sources):
    changing = ["tools/%s" % f for f, text in sorted(sources.items())
                if f not in SYS_PATH and re.search(r"sys\.path\.(insert|append)", text)]
    assert not changing, "nothing in tools/ changes sys.path but %s:%s" % (
        ", ".join(sorted(SYS_PATH)), listed(changing))
