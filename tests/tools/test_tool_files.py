#!/usr/bin/env python3
"""The shape of tools/: no file over LIMIT lines but those OVER_LIMIT
still allows, every file named with an extension or starting with a
shebang (so linters and duplicate checks that pick files either way see
it), and no cycle in the tools' Python import graph: an import of a
tools/ module, or a tools/imports.py tool("name") load of a script.
Files are the tree's, tracked or not, but not what git ignores (build
outputs, __pycache__). Each failure lists its offenders; ends with
"N passed, N failed"."""

import ast
import os
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
# What loads a script of tools/ by name (tools/imports.py, tests/report.py).
LOADERS = {"tool", "load_tool"}


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


def imported_names(source):
    """The tools/ files a Python source may name: each module it imports,
    as NAME.py, and each script it loads with tool("NAME"), as NAME."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] + ".py" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0] + ".py")
        elif isinstance(node, ast.Call) and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in LOADERS:
                names.add(node.args[0].value)
    return names


def import_graph(files, tools_dir, is_python):
    """{file: the tools/ files it imports or loads}, over the Python ones;
    only tools/ itself is on their path, not its subdirectories."""
    top = {f for f in files if "/" not in f}
    graph = {}
    for f in files:
        if is_python(f):
            with open(os.path.join(tools_dir, f), errors="replace") as src:
                graph[f] = sorted((imported_names(src.read()) & top) - {f})
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
    graph = import_graph(files, TOOLS, lambda f: language(os.path.join("tools", f)) == "python")
    check("the import graph covers the Python tools", len(graph) >= 20,
          "found %d" % len(graph))
    check_problems("the tools' import graph has no cycle", cycles(graph))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
