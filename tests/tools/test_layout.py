#!/usr/bin/env python3
"""docs/README.md's layout table ("The tree") must match the tree: every directory it lists
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
do not count it as theirs. pv/ is a floor below kernel/: its files
include no kernel/ header but the few named below with the reason (a
kernel service built on pv/, such as live patching, lives in kernel/)."""

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Native files with no Xen twin, and why.
NATIVE_ONLY = {
    "insns.c": "the native site ops are the registry's instructions; Xen's are in irq.c, pte.c "
               "and tlb.c",
    "pvh.c": "a native entry path; Xen's are xen/pv/start.c and xen/pvh/start.c",
    "multiboot2.c": "a native entry path; Xen's are xen/pv/start.c and xen/pvh/start.c",
}
# PVH files with no twin: its own entry path.
PVH_ONLY = {"start.c": "the PVH backend's entry path, called by arch/x86/pvh.c"}
# The kernel/ headers pv/ may include, and why: what any layer needs, none
# of which needs the scheduler, the CPUs or the clock.
PV_MAY_INCLUDE = {
    "kernel/console.h": "printing (kprintf)",
    "kernel/printf.h": "printing into a buffer (ksnprintf), also on the host (tools/pvemit)",
    "kernel/exit.h": "panicking",
    "kernel/string.h": "strings and memory (memcpy)",
    "kernel/cmdline.h": "declaring its own command-line options",
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layout_rows(readme):
    text = readme.split("## The tree", 1)[1] if "## The tree" in readme else ""
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)/` \| (.*) \|$", text, re.M)}


def kernel_c():
    """The Makefile's KERNEL_C, from make's database."""
    p = subprocess.run(["make", "-s", "-p", "-q", "-C", ROOT, "__layout_nothing__"],
                       capture_output=True, text=True)
    m = re.search(r"^KERNEL_C := (.*)$", p.stdout, re.M)
    return m.group(1).split() if m else []


def pv_kernel_includes(root):
    """[(pv file, kernel/ header)] for every kernel/ header a pv/ file
    includes that PV_MAY_INCLUDE does not name."""
    found = []
    for dirpath, _, names in os.walk(os.path.join(root, "pv")):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            with open(path) as f:
                for inc in INCLUDE.findall(f.read()):
                    if inc.startswith("."):  # "../kernel/x.h", from the file's directory
                        inc = os.path.relpath(os.path.join(dirpath, inc), root)
                    if inc.startswith("kernel/") and inc not in PV_MAY_INCLUDE:
                        found.append((os.path.relpath(path, root), inc))
    return found


def readme_rows():
    with open(os.path.join(ROOT, "docs", "README.md")) as f:
        return layout_rows(f.read())


ROWS = readme_rows()
TOP = sorted(e for e in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, e))
             and not e.startswith(".") and e != "build")
BACKENDS = ("arch/x86/native", "xen", "xen/pv", "xen/pvh")
NAMED = [(d, name) for d in BACKENDS for name in re.findall(r"`([a-z_0-9]+)`", ROWS.get(d, ""))]
NATIVE, XEN, PV, PVH = ({f for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".c")}
                        for d in BACKENDS)


def test_readme_has_a_layout_table():
    assert ROWS, "no rows under '## The tree'"


@pytest.mark.parametrize("d", sorted(ROWS))
def test_listed_directory_exists(d):
    assert os.path.isdir(os.path.join(ROOT, d)), f"{d}/ exists"


@pytest.mark.parametrize("d", TOP)
def test_top_directory_is_in_the_layout_table(d):
    assert any(r.split("/")[0] == d for r in ROWS), f"{d}/ is in the layout table"


@pytest.mark.parametrize("d", BACKENDS)
def test_backend_is_in_the_layout_table(d):
    assert d in ROWS, f"{d}/ is in the layout table"


@pytest.mark.parametrize("d,name", NAMED, ids=["%s/%s.c" % n for n in NAMED])
def test_named_backend_file_exists(d, name):
    assert os.path.isfile(os.path.join(ROOT, d, name + ".c")), f"{d}/{name}.c exists"


@pytest.mark.parametrize("f", sorted(NATIVE - set(NATIVE_ONLY)))
def test_native_file_has_a_xen_twin(f):
    assert f in PV or f in XEN, f"arch/x86/native/{f} has a twin xen/pv/{f} or xen/{f}"


@pytest.mark.parametrize("f", sorted(PVH - set(PVH_ONLY)))
def test_pvh_file_has_a_twin(f):
    assert f in NATIVE or f in PV, f"xen/pvh/{f} has a twin arch/x86/native/{f} or xen/pv/{f}"


def test_every_kernel_c_file_is_built():
    built = set(kernel_c())
    assert built, "the Makefile's KERNEL_C lists the kernel's C files"
    strays = []
    for d in sorted({f.split("/")[0] for f in built}):
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            strays += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in sorted(names)
                       if n.endswith(".c")]
    strays = [f for f in strays if f not in built]
    assert not strays, ("every .c under the kernel's directories is built into the kernel; "
                        "not in KERNEL_C: %s (a program that is not kernel code belongs "
                        "outside the kernel's directories)" % ", ".join(strays))


def test_pv_includes_only_what_it_may_of_kernel():
    reaching_up = ["%s includes %s" % found for found in pv_kernel_includes(ROOT)]
    assert not reaching_up, (
        "pv/ includes no kernel/ header but " + ", ".join(sorted(PV_MAY_INCLUDE))
        + " (a kernel service built on pv/ belongs in kernel/): " + "; ".join(reaching_up))
