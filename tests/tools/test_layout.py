#!/usr/bin/env python3
"""README's layout table must match the tree: every directory it lists
exists, every source directory of the tree is listed, and every file name
it gives for a backend (`name` in the arch/x86/native/ and xen/ rows) is a
.c file there. The two backends mirror each other: every concern file of
the native backend has a Xen twin of the same name, except the concerns
listed below with the reason. Ends with "N passed, N failed"."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Native files with no Xen twin, and why.
NATIVE_ONLY = {
    "insns.c": "the native site ops are the registry's instructions; Xen's are in irq.c and mmu.c",
    "pvh.c": "a native entry path; Xen's is start.c",
    "multiboot2.c": "a native entry path; Xen's is start.c",
}
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def layout_rows(readme):
    text = readme.split("## Layout", 1)[1]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)/` \| (.*) \|$", text, re.M)}


def main():
    with open(os.path.join(ROOT, "README.md")) as f:
        rows = layout_rows(f.read())
    check("README has a layout table", bool(rows), "no rows under '## Layout'")
    for d in rows:
        check(f"{d}/ exists", os.path.isdir(os.path.join(ROOT, d)))
    top = {e for e in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, e))
           and not e.startswith(".") and e != "build"}
    for d in sorted(top):
        check(f"{d}/ is in README's layout table", any(r.split("/")[0] == d for r in rows))
    check("arch/x86/native/ is in README's layout table", "arch/x86/native" in rows)
    for d in ("arch/x86/native", "xen"):
        for name in re.findall(r"`([a-z_0-9]+)`", rows.get(d, "")):
            path = os.path.join(ROOT, d, name + ".c")
            check(f"{d}/{name}.c exists", os.path.isfile(path))
    native = {f for f in os.listdir(os.path.join(ROOT, "arch/x86/native")) if f.endswith(".c")}
    xen = {f for f in os.listdir(os.path.join(ROOT, "xen")) if f.endswith(".c")}
    for f in sorted(native - set(NATIVE_ONLY)):
        check(f"arch/x86/native/{f} has a twin xen/{f}", f in xen)
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
