#!/usr/bin/env python3
"""README's layout table must match the tree: every directory it lists
exists, every source directory of the tree is listed, and every file name
it gives for a backend (`name` in the arch/x86/native/, xen/, xen/pv/ and
xen/pvh/ rows) is a .c file there. The backends mirror each other: every
concern file of the native backend has a Xen twin of the same name, in
xen/pv/ or, when both Xen backends share it, in xen/, except the concerns
listed below with the reason; and every file of the PVH backend but its
entry path is a twin of a native or PV file. Every .c file under the
kernel's directories is built into the kernel (the Makefile's KERNEL_C): a
program that is not kernel code, such as the benchmark program for Linux,
lives in a directory of its own (linux-user/), where the kernel's checks
do not count it as theirs. Ends with "N passed, N failed"."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
from report import check, summary  # noqa: E402

# Native files with no Xen twin, and why.
NATIVE_ONLY = {
    "insns.c": "the native site ops are the registry's instructions; Xen's are in irq.c and mmu.c",
    "pvh.c": "a native entry path; Xen's are xen/pv/start.c and xen/pvh/start.c",
    "multiboot2.c": "a native entry path; Xen's are xen/pv/start.c and xen/pvh/start.c",
}
# PVH files with no twin: its own entry path.
PVH_ONLY = {"start.c": "the PVH backend's entry path, called by arch/x86/pvh.c"}


def layout_rows(readme):
    text = readme.split("## Layout", 1)[1]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)/` \| (.*) \|$", text, re.M)}


def kernel_c():
    """The Makefile's KERNEL_C, from make's database."""
    p = subprocess.run(["make", "-s", "-p", "-q", "-C", ROOT, "__layout_nothing__"],
                       capture_output=True, text=True)
    m = re.search(r"^KERNEL_C := (.*)$", p.stdout, re.M)
    return m.group(1).split() if m else []


def check_kernel_dirs():
    built = set(kernel_c())
    check("the Makefile's KERNEL_C lists the kernel's C files", bool(built))
    strays = []
    for d in sorted({f.split("/")[0] for f in built}):
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            strays += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in sorted(names)
                       if n.endswith(".c")]
    strays = [f for f in strays if f not in built]
    check("every .c under the kernel's directories is built into the kernel", not strays,
          "not in KERNEL_C: %s (a program that is not kernel code belongs outside the "
          "kernel's directories)" % ", ".join(strays))


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
    for d in ("arch/x86/native", "xen", "xen/pv", "xen/pvh"):
        check(f"{d}/ is in README's layout table", d in rows)
        for name in re.findall(r"`([a-z_0-9]+)`", rows.get(d, "")):
            path = os.path.join(ROOT, d, name + ".c")
            check(f"{d}/{name}.c exists", os.path.isfile(path))
    native, xen, pv, pvh = ({f for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".c")}
                            for d in ("arch/x86/native", "xen", "xen/pv", "xen/pvh"))
    for f in sorted(native - set(NATIVE_ONLY)):
        check(f"arch/x86/native/{f} has a twin xen/pv/{f} or xen/{f}", f in pv or f in xen)
    for f in sorted(pvh - set(PVH_ONLY)):
        check(f"xen/pvh/{f} has a twin arch/x86/native/{f} or xen/pv/{f}", f in native or f in pv)
    check_kernel_dirs()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
