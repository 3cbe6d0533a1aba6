#!/usr/bin/env python3
"""The shape of tools/: no file over LIMIT lines but those OVER_LIMIT
still allows, every file named with an extension or starting with a
shebang (so linters and duplicate checks that pick files either way see
it), no cycle in the tools' Python import graph (the package pbtools's
modules, absolute and relative imports, and the scripts that import
them), and no change to sys.path but where SYS_PATH says why.
Files are the tree's, tracked or not, but not what git ignores (build
outputs, __pycache__). Each failure lists its offenders; ends with
"N passed, N failed"."""

import ast
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from report import check, check_problems, summary  # noqa: E402
from pbtools.scripts import language  # noqa: E402  the one rule for what is a Python script

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


def main():
    files = tool_files(ROOT)
    check("tools/ has its files", len(files) >= 20, "found %d" % len(files))
    sizes = {f: line_count(os.path.join(TOOLS, f)) for f in files}
    check_problems("no tools/ file over %d lines but those OVER_LIMIT allows" % LIMIT,
                   ["tools/%s: %d lines" % (f, n) for f, n in sorted(sizes.items())
                    if n > LIMIT and f not in OVER_LIMIT])
    check_problems("every file OVER_LIMIT allows is still over %d lines" % LIMIT,
                   ["tools/%s: %s; take it off OVER_LIMIT" % (
                       f, "%d lines" % sizes[f] if f in sizes else "gone")
                    for f in sorted(OVER_LIMIT) if sizes.get(f, 0) <= LIMIT])
    check_problems("every tools/ file has an extension or a shebang",
                   ["tools/%s" % f for f in files if "." not in os.path.basename(f)
                    and not has_shebang(os.path.join(TOOLS, f))])
    sources = {}
    for f in files:
        if language(os.path.join("tools", f)) == "python":
            with open(os.path.join(TOOLS, f), errors="replace") as src:
                sources[f] = src.read()
    graph = import_graph(sources)
    check("the import graph covers the Python tools", len(graph) >= 20,
          "found %d" % len(graph))
    check_problems("the tools' import graph has no cycle", cycles(graph))
    check("the cycle check sees one made of absolute and relative imports",
          cycles(import_graph(CIRCLE)) == ["pkg/a.py -> pkg/sub/b.py -> pkg/a.py"],
          cycles(import_graph(CIRCLE)))
    check_problems("nothing in tools/ changes sys.path but %s" % ", ".join(sorted(SYS_PATH)),
                   ["tools/%s" % f for f, text in sorted(sources.items())
                    if f not in SYS_PATH and re.search(r"sys\.path\.(insert|append)", text)])
    return summary()


if __name__ == "__main__":
    sys.exit(main())
