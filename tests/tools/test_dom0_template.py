#!/usr/bin/env python3
"""tools/pbtools/run/dom0_template.py's key, which says when two domU runs
may share a saved dom0: not when their QEMU arguments, Xen, dom0's kernel or
initramfs, or their disk's size or access differ; yes when only their
working directories or their disks' paths do. And the runs that take no
template: not --domu, --icount, --gdb."""

import argparse
import os

import pytest
from pbtools.run import dom0_template


def workdir(root, name, xen=b"XEN", vmlinux=b"LINUX", initrd=b"INITRD"):
    """A QEMU working directory as tools/run_domu.py leaves one, with
    tools/fetch-domu's stamp beside it, which records vmlinux's SHA256."""
    path = os.path.join(root, name)
    os.makedirs(path)
    for file, data in (("xen", xen), ("initrd.stamp", b"STAMP " + vmlinux),
                       ("initrd.cpio", initrd)):
        with open(os.path.join(path, file), "wb") as f:
            f.write(data)
    return path


def disk(root, name, size):
    path = os.path.join(root, name)
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def command(work, disk_path=None, append="dom0_mem=384M"):
    cmd = ["qemu-system-x86_64", "-kernel", "xen", "-append", append, "-drive",
           "file=%s/run-files.img,if=none,id=pbrun" % work]
    if disk_path:
        cmd += ["-drive", "file=%s,if=none,id=pbdisk" % disk_path]
    return cmd


def key(work, disk_path=None, ro=False, **kw):
    args = argparse.Namespace(disk_path=disk_path, disk_ro=ro)
    return dom0_template.template_key(command(work, disk_path, **kw), args, work,
                                      os.path.join(work, "initrd.stamp"))


@pytest.fixture
def runs(tmp_path):
    """Two runs' working directories, a and b, alike but for their paths."""
    return str(tmp_path), workdir(str(tmp_path), "run-a"), workdir(str(tmp_path), "run-b")


def test_two_working_directories_one_key(runs):
    _, a, b = runs
    assert key(a) == key(b), "two runs' working directories: one key"


def test_another_xen_command_line_another_key(runs):
    _, a, _ = runs
    assert key(a) != key(a, append="dom0_mem=512M"), "another Xen command line: another key"


@pytest.mark.parametrize("what", ("xen", "vmlinux", "initrd"))
def test_another_file_another_key(runs, what):
    d, a, _ = runs
    other = workdir(d, "run-" + what, **{what: b"OTHER"})
    assert key(other) != key(a), "another %s: another key" % what


def test_disks(runs):
    d, a, b = runs
    small, small2, big = disk(d, "x.img", 4 << 20), disk(d, "y.img", 4 << 20), disk(
        d, "z.img", 8 << 20)
    assert key(a, small) == key(b, small2), "two disks of one size at other paths: one key"
    assert key(a, small) != key(a, big), "a disk of another size: another key"
    assert key(a, small) != key(a, small, ro=True), "a read-only disk: another key"
    assert key(a, small) != key(a), "a disk or none: another key"


MODES = ((dict(domu=False, icount=False, gdb=False), False),
         (dict(domu=True, icount=True, gdb=False), False),
         (dict(domu=True, icount=False, gdb=True), False),
         (dict(domu=True, icount=False, gdb=False), True))


@pytest.mark.parametrize("argv,want", MODES, ids=[
    ",".join(k for k, v in argv.items() if v) or "native" for argv, _ in MODES])
def test_mode(monkeypatch, argv, want):
    monkeypatch.delenv("PATCHBAY_DOM0_TEMPLATES", raising=False)
    got = dom0_template.applies(argparse.Namespace(**argv))
    assert got == want, "%s: %s" % (", ".join(k for k, v in argv.items() if v) or "native",
                                    "a template" if want else "no template")


def test_templates_off_boots_fresh(monkeypatch):
    monkeypatch.setenv("PATCHBAY_DOM0_TEMPLATES", "off")
    got = dom0_template.applies(argparse.Namespace(domu=True, icount=False, gdb=False))
    assert not got, "PATCHBAY_DOM0_TEMPLATES=off: a fresh boot"
